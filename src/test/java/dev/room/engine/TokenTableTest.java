package dev.room.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The table against a map under random adds, removals, rekeys and lookups: with random tokens, and
 * with tokens picked to share a few home slots (long probe runs, distances past what a tag holds,
 * runs that wrap round the end), so every branch of the backward shift is taken.
 */
class TokenTableTest {
  private static final TestTickets TICKETS = new TestTickets();

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3})
  void matchesAMapUnderRandomOperations(int homes) {
    Ticket probe = fresh(new SplittableRandom(7), 1, 0);
    assertEquals(
        (1 << 20) - 1, TokenTable.home(TokenTable.hash(probe.hi(), probe.lo()), (1 << 20) - 1));
    SplittableRandom random = new SplittableRandom(1600 + homes);
    TokenTable table = new TokenTable();
    Map<List<Long>, Ticket> model = new HashMap<>();
    List<Ticket> live = new ArrayList<>();
    for (int step = 0; step < 16_000; step++) {
      int op = random.nextInt(10);
      if (op < 5 || live.isEmpty()) {
        Ticket t = fresh(random, homes, step);
        boolean added = table.add(t);
        assertEquals(!model.containsKey(key(t)), added);
        if (added) {
          model.put(key(t), t);
          live.add(t);
        }
      } else if (op < 8) {
        Ticket t = live.remove(random.nextInt(live.size()));
        assertTrue(table.remove(t));
        assertFalse(table.remove(t));
        model.remove(key(t));
        assertNull(table.get(t.hi(), t.lo()));
      } else {
        Ticket t = live.get(random.nextInt(live.size()));
        Ticket moved = fresh(random, homes, step);
        if (!model.containsKey(key(moved))) {
          model.remove(key(t));
          assertTrue(table.remove(t));
          TestTickets.token(t, moved.hi(), moved.lo());
          assertTrue(table.add(t));
          model.put(key(t), t);
        }
      }
      if (step % 997 == 0 || live.size() < 70) {
        assertEquals(model.size(), table.size());
        assertNull(table.check());
        for (Ticket t : live) {
          assertSame(t, table.get(t.hi(), t.lo()));
        }
      }
      Ticket absent = fresh(random, homes, step);
      if (!model.containsKey(key(absent))) {
        assertNull(table.get(absent.hi(), absent.lo()));
      }
      if (step == 12_000) { // drain, so the table shrinks back through every size
        for (Ticket t : live) {
          assertTrue(table.remove(t));
          model.remove(key(t));
        }
        live.clear();
        assertEquals(0, table.size());
      }
    }
    assertNull(table.check());
  }

  /**
   * A random ticket; with {@code homes > 0} its token's home (in every table up to 2^20 slots) is
   * one of {@code homes} slots next to the top of the table, so its probe run wraps round to 0.
   */
  private static Ticket fresh(SplittableRandom random, int homes, long number) {
    long hi = random.nextLong();
    long lo = random.nextLong();
    if (homes > 0) { // solve hash(hi, lo) = h for an h whose top 32 bits give the chosen home
      long home = (1 << 20) - 1 - random.nextInt(homes);
      long h = (home << 32) | (random.nextLong() & 0xFFFF_FFFFL) | (random.nextLong() << 52);
      lo = (h * INVERSE) ^ (hi >>> 29);
    }
    return TICKETS.make(hi, lo, number);
  }

  /** The multiplicative inverse of the hash's odd constant modulo 2^64 (Newton's iteration). */
  private static final long INVERSE = inverse(0x9E3779B97F4A7C15L);

  private static long inverse(long a) {
    long x = a;
    for (int i = 0; i < 6; i++) {
      x *= 2 - a * x;
    }
    return x;
  }

  private static List<Long> key(Ticket t) {
    return List.of(t.hi(), t.lo());
  }
}
