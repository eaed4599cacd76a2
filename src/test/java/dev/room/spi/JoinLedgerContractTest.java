package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.engine.JoinLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The join ledger's contract, with the room's {@link JoinLimiter} on top, over simulated minutes of
 * a {@link FakeClock}: every ledger (in memory, Redis) extends this. Nothing sleeps.
 */
public abstract class JoinLedgerContractTest {
  /** Seconds before a minute's end, at an odd origin. */
  protected final FakeClock clock = new FakeClock(4_102_444_740_000L + 45_123);

  /** A ledger for a fresh room. */
  protected abstract JoinLedger newLedger();

  /** Another instance's ledger of the same room as {@code ledger}'s (itself when not shared). */
  protected abstract JoinLedger sameRoomElsewhere(JoinLedger ledger);

  @AfterEach
  protected void closeLedgers() {}

  @Test
  void aKeyGetsItsLimitPerMinuteThenWaitsForTheNextMinute() {
    JoinLimiter limiter = new JoinLimiter(newLedger());
    for (int i = 0; i < 3; i++) {
      assertEquals(0, limiter.tryJoin("203.0.113.7", 3, clock.millis()), "join " + (i + 1));
      clock.advanceMillis(1_000);
    }
    long now = clock.millis();
    long left = JoinLimiter.WINDOW_MILLIS - Math.floorMod(now, JoinLimiter.WINDOW_MILLIS);
    assertEquals(left, limiter.tryJoin("203.0.113.7", 3, now), "the fourth waits for the minute");
    assertEquals(left - 500, limiter.tryJoin("203.0.113.7", 3, now + 500), "refusals do not reset");

    clock.advanceMillis(left); // the next minute
    assertEquals(0, limiter.tryJoin("203.0.113.7", 3, clock.millis()));
    clock.advanceMillis(10 * JoinLimiter.WINDOW_MILLIS); // long after: nothing is left over
    for (int i = 0; i < 3; i++) {
      assertEquals(0, limiter.tryJoin("203.0.113.7", 3, clock.millis()));
    }
    assertTrue(limiter.tryJoin("203.0.113.7", 3, clock.millis()) > 0);
  }

  @Test
  void keysAreCountedApartAndAHouseholdSharesOneKey() {
    JoinLimiter limiter = new JoinLimiter(newLedger());
    long now = clock.millis();
    assertEquals(0, limiter.tryJoin("household", 2, now));
    assertEquals(0, limiter.tryJoin("household", 2, now));
    assertTrue(limiter.tryJoin("household", 2, now) > 0, "the third in the house waits");
    assertEquals(0, limiter.tryJoin("neighbour", 2, now), "another key is not affected");
    assertEquals(0, limiter.tryJoin("", 2, now), "the empty key is a key like any other");
  }

  @Test
  void theLimitIsSharedByEveryInstanceOfTheRoom() {
    JoinLedger here = newLedger();
    JoinLedger there = sameRoomElsewhere(here);
    long now = clock.millis();
    assertEquals(0, new JoinLimiter(here).tryJoin("k", 2, now));
    assertEquals(0, new JoinLimiter(there).tryJoin("k", 2, now));
    assertTrue(new JoinLimiter(here).tryJoin("k", 2, now) > 0);
    assertTrue(new JoinLimiter(there).tryJoin("k", 2, now) > 0);
    assertArrayEquals(here.secret(), there.secret(), "one secret signs for every instance");
    assertEquals(32, here.secret().length);
  }

  @Test
  void aChallengeIsSpentOnceEvenFromAnotherInstance() {
    JoinLedger here = newLedger();
    JoinLedger there = sameRoomElsewhere(here);
    long now = clock.millis();
    long expires = now + 300_000;
    assertTrue(here.spend("c1", expires, now));
    assertFalse(here.spend("c1", expires, now + 1), "replayed here");
    assertFalse(there.spend("c1", expires, now + 2), "replayed elsewhere");
    assertTrue(there.spend("c2", expires, now), "another challenge is its own");
  }

  @Test
  void concurrentJoinsOfOneKeyLetExactlyTheLimitIn() throws Exception {
    JoinLimiter limiter = new JoinLimiter(newLedger());
    long now = clock.millis();
    AtomicInteger allowed = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    if (limiter.tryJoin("flood", 25, now) == 0) {
                      allowed.incrementAndGet();
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(25, allowed.get());
  }
}
