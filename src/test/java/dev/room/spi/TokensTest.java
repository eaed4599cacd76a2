package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hex form against the JDK's own parsing: either case reads, anything else is refused. */
class TokensTest {

  @Test
  void parsesWhatItFormatsInEitherCase() {
    SplittableRandom random = new SplittableRandom(16);
    for (int i = 0; i < 10_000; i++) {
      long hi = random.nextLong();
      long lo = random.nextLong();
      String s = Tokens.format(hi, lo);
      for (String form : new String[] {s, s.toUpperCase(Locale.ROOT)}) {
        assertTrue(Tokens.valid(form));
        assertEquals(hi, Tokens.hi(form));
        assertEquals(lo, Tokens.lo(form));
        assertEquals(Long.parseUnsignedLong(s.substring(0, 16), 16), Tokens.hi(form));
      }
    }
  }

  @Test
  void refusesEveryCharacterThatIsNotAHexDigit() {
    String good = Tokens.format(0x0123456789abcdefL, 0xfedcba9876543210L);
    for (char c = 0; c < 0x300; c++) {
      boolean hex = Character.digit(c, 16) >= 0 && c < 128;
      for (int at : new int[] {0, 17, 31}) {
        String s = good.substring(0, at) + c + good.substring(at + 1);
        assertEquals(hex, Tokens.valid(s), "character " + (int) c + " at " + at);
      }
    }
    assertFalse(Tokens.valid(good.substring(1)));
    assertFalse(Tokens.valid(good + "0"));
    assertFalse(Tokens.valid(null));
  }
}
