package dev.room.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The in-memory join ledger forgets what is over: memory follows recent traffic, not all of it. */
class LocalJoinLedgerTest {
  @Test
  void spentChallengesAndPastWindowsAreSweptAsTheLedgerGoes() {
    LocalJoinLedger ledger = new LocalJoinLedger();
    long now = 1_767_225_600_000L;
    int perRound = 3_000;
    for (int round = 0; round < 20; round++) {
      long window = Math.floorDiv(now, JoinLimiter.WINDOW_MILLIS);
      for (int i = 0; i < perRound; i++) {
        ledger.spend("c" + round + "-" + i, now + 1_000, now);
        ledger.countJoin("k" + round + "-" + i, window, now + JoinLimiter.WINDOW_MILLIS, now);
      }
      now += 2 * JoinLimiter.WINDOW_MILLIS; // everything above is over
    }
    int bound = 2 * (4 * perRound + 1024); // a round's entries, swept at each doubling
    assertTrue(ledger.size() <= bound, ledger.size() + " entries kept, more than " + bound);
  }
}
