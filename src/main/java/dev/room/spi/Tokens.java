package dev.room.spi;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * 128-bit bearer tokens: generation from {@link SecureRandom} and the 32-character hex form.
 *
 * <p>Lines key everything by the two {@code long} halves so the hot path parses a cookie without
 * allocating. A token is never logged.
 */
public final class Tokens {
  /** Length of a token's hex form. */
  public static final int HEX_LENGTH = 32;

  /**
   * One generator per thread: the platform's default ({@code NativePRNG}) serialises every caller
   * on one global lock, and in an arrival burst the request threads queued on it, starving the
   * claims of clients told they are ready (issue 16, measured by the soak). DRBG instances are
   * independent, each seeded from the system's entropy source.
   */
  private static final ThreadLocal<SecureRandom> RANDOM =
      ThreadLocal.withInitial(Tokens::newRandom);

  private static final char[] DIGITS = "0123456789abcdef".toCharArray();

  /**
   * Each ASCII character's hex value, or -1. A table, not comparisons: a random token's digits are
   * letters or numbers at random, so every branch on the character was a coin toss the CPU
   * mispredicted, about 350 ns per token (64 characters read by valid, hi and lo), a third of a
   * {@code removeToken} (issue 16).
   */
  private static final byte[] DIGIT = new byte[128];

  static {
    java.util.Arrays.fill(DIGIT, (byte) -1);
    for (int i = 0; i < 16; i++) {
      DIGIT["0123456789abcdef".charAt(i)] = (byte) i;
      DIGIT["0123456789ABCDEF".charAt(i)] = (byte) i;
    }
  }

  private Tokens() {}

  private static SecureRandom newRandom() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (NoSuchAlgorithmException e) {
      return new SecureRandom(); // every JDK since 9 has DRBG; the default is as good, if shared
    }
  }

  /** Returns a fresh random token as {hi, lo}. */
  public static long[] generate() {
    byte[] b = new byte[16];
    RANDOM.get().nextBytes(b);
    long hi = 0;
    long lo = 0;
    for (int i = 0; i < 8; i++) {
      hi = (hi << 8) | (b[i] & 0xFF);
      lo = (lo << 8) | (b[i + 8] & 0xFF);
    }
    return new long[] {hi, lo};
  }

  /** Formats a token as 32 lowercase hex characters. */
  public static String format(long hi, long lo) {
    char[] c = new char[HEX_LENGTH];
    for (int i = 15; i >= 0; i--) {
      c[i] = DIGITS[(int) (hi & 0xF)];
      hi >>>= 4;
      c[i + 16] = DIGITS[(int) (lo & 0xF)];
      lo >>>= 4;
    }
    return new String(c);
  }

  /** Returns true when {@code s} is exactly 32 hex characters. */
  public static boolean valid(CharSequence s) {
    if (s == null || s.length() != HEX_LENGTH) {
      return false;
    }
    for (int i = 0; i < HEX_LENGTH; i++) {
      if (digit(s.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }

  /** The high half of a valid token. */
  public static long hi(CharSequence s) {
    return parse(s, 0);
  }

  /** The low half of a valid token. */
  public static long lo(CharSequence s) {
    return parse(s, 16);
  }

  private static long parse(CharSequence s, int from) {
    long v = 0;
    for (int i = from; i < from + 16; i++) {
      v = (v << 4) | digit(s.charAt(i));
    }
    return v;
  }

  private static int digit(char c) {
    return c < DIGIT.length ? DIGIT[c] : -1;
  }
}
