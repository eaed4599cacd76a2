package dev.room.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.LedgerLine;
import dev.room.spi.Line;
import dev.room.spi.Move;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Scenario tests of the in-memory line; invariants are checked after each test. */
class InMemoryLineTest {
  private static final long TTL = 300_000;
  private static final long READY_TIMEOUT = 60_000;
  private static final Policy POLICY = new Policy(TTL, 0, 1000, TTL / 3, READY_TIMEOUT, 0);
  private static final Policy GRACE = new Policy(TTL, 30_000, 1000, TTL / 3, READY_TIMEOUT, 0);

  // Near overflow, to flush out arithmetic that assumes small timestamps.
  private long now = Long.MAX_VALUE - 10_000_000_000L;
  private LedgerLine line;

  @AfterEach
  void invariants() {
    if (line != null) {
      ((InMemoryLine) line.delegate()).checkInvariants();
      line.checkLedger();
    }
  }

  private long arrive(long id) {
    return line.arrive(id, id, "k" + id, false, now, POLICY);
  }

  private long position(long id) {
    long o = line.poll(id, id, now, POLICY);
    return Outcome.kind(o) == Outcome.WAITING ? Outcome.position(o) : -Outcome.kind(o);
  }

  /**
   * Issue 16: a status poll allocates nothing, on the record path of minted tokens and on the
   * overflow path of tokens brought by the caller, rate-limited or not, with positions moving.
   */
  @Test
  void aStatusPollAllocatesNothing() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    long[][] clients = new long[600][];
    for (int i = 0; i < clients.length; i++) {
      long[] t = {0x5EED_0000L + i, (long) i << 40};
      long o =
          i % 3 == 0
              ? line.arrive(t[0], t[1], "", false, now, POLICY) // overflow: the caller's token
              : line.arrive(t, null, "", false, now, POLICY); // minted: names its record
      assertEquals(i + 1, Outcome.position(o));
      clients[i] = t;
    }
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long sum = 0;
    long before = threads.getThreadAllocatedBytes(id);
    for (int round = 0; round < 50; round++) {
      now += 400; // every other round passes the poll interval: both rate-limit branches
      for (long[] t : clients) {
        sum += Outcome.position(line.poll(t[0], t[1], now, POLICY));
      }
    }
    long allocated = threads.getThreadAllocatedBytes(id) - before;
    assertEquals(50L * 600 * 601 / 2, sum, "every client kept its exact position");
    assertTrue(allocated < 4_096, allocated + " bytes allocated by 30,000 polls");
    line.exit(now);
  }

  @Test
  void fastPathFillsTheRoomThenEveryoneQueuesInOrder() {
    line = new LedgerLine(new InMemoryLine(2));
    assertTrue(line.tryEnter());
    assertTrue(line.tryEnter());
    assertFalse(line.tryEnter());
    assertEquals(Outcome.WAITING, Outcome.kind(arrive(1)));
    assertEquals(2, Outcome.position(arrive(2)));
    assertEquals(2, line.waiting());
    assertEquals(2, line.inFlight());
  }

  @Test
  void aFreedSlotIsHandedToTheFirstWaiterAndNoNewcomerCanTakeIt() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    arrive(1);
    arrive(2);
    line.exit(now);
    assertEquals(1, line.ready());
    assertFalse(line.tryEnter(), "the slot is reserved for ticket 1");
    assertEquals(Outcome.WAITING, Outcome.kind(arrive(3)));
    assertEquals(Outcome.READY, Outcome.kind(line.poll(1, 1, now, POLICY)));
    assertEquals(1, position(2));
    assertEquals(Outcome.ADMITTED, Outcome.kind(line.claim(1, 1, now, POLICY)));
    assertEquals(Outcome.UNKNOWN, Outcome.kind(line.claim(1, 1, now, POLICY)), "claimed once");
    assertEquals(1, line.inFlight());
  }

  /** Regression for the Go v1.2.1 freeze: abandoned ready tickets must not cost a slot. */
  @Test
  void capacityOneKeepsMovingWhenClientsAbandonTheMomentTheyAreTold() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    for (long id = 1; id <= 20; id++) {
      arrive(id);
    }
    line.exit(now);
    for (long id = 1; id <= 20; id++) {
      assertEquals(Outcome.READY, Outcome.kind(line.poll(id, id, now, POLICY)), "ticket " + id);
      // ...and the client vanishes. Everyone behind it keeps polling.
      for (long behind = id + 1; behind <= 20; behind++) {
        line.poll(behind, behind, now, POLICY);
      }
      now += READY_TIMEOUT;
      int[] r = line.evict(now, POLICY);
      assertEquals(1, r[1], "one ready client timed out");
      ((InMemoryLine) line.delegate()).checkInvariants();
    }
    assertEquals(0, line.ready(), "the abandoned keep their places, away, until their TTL");
    assertEquals(1, line.freeSlots());
    assertEquals(
        Outcome.ADMITTED,
        Outcome.kind(arrive(21)),
        "the line still moves: a newcomer gets the slot at once");
  }

  @Test
  void pollsKeepATicketAliveAndSilenceExpiresIt() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    arrive(1);
    arrive(2);
    for (int i = 0; i < 10; i++) {
      now += TTL - 1000;
      line.poll(1, 1, now, POLICY);
    }
    assertEquals(1, position(1));
    assertEquals(Outcome.UNKNOWN, Outcome.kind(line.poll(2, 2, now, POLICY)));
    assertEquals(1, line.waiting());
  }

  @Test
  void firstPollGraceReclaimsClientsThatNeverComeBack() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    line.arrive(1, 1, "", false, now, GRACE);
    line.arrive(2, 2, "", false, now, GRACE);
    now += 10_000;
    line.poll(2, 2, now, GRACE);
    now += 25_000;
    int[] r = line.evict(now, GRACE);
    assertEquals(1, r[0]);
    assertEquals(1, Outcome.position(line.poll(2, 2, now, GRACE)), "2 moved up");
  }

  @Test
  void aGraceAtOrAboveTheTtlNeverFiresBeforeTheTtl() {
    Policy p = new Policy(60_000, 120_000, 1000, 20_000, READY_TIMEOUT, 0);
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    line.arrive(1, 1, "", false, now, p);
    now += 59_999;
    assertEquals(0, line.evict(now, p)[0]);
    now += 1;
    assertEquals(1, line.evict(now, p)[0]);
  }

  @Test
  void pollsFasterThanOncePerSecondAreLimitedButKeepTheTicketAlive() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    arrive(1);
    long first = line.poll(1, 1, now, POLICY);
    assertFalse(Outcome.has(first, Outcome.RATE_LIMITED));
    now += 500;
    long second = line.poll(1, 1, now, POLICY);
    assertTrue(Outcome.has(second, Outcome.RATE_LIMITED));
    assertEquals(1, Outcome.position(second));
    now += TTL - 100; // alive only because the limited poll refreshed it
    assertEquals(Outcome.WAITING, Outcome.kind(line.poll(1, 1, now, POLICY)));
  }

  @Test
  void cookiesAreRefreshedAtMostOncePerThirdOfTheTtl() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    arrive(1);
    int refreshes = 0;
    for (int i = 0; i < 300; i++) {
      now += 2000;
      if (Outcome.has(line.poll(1, 1, now, POLICY), Outcome.REFRESH_COOKIES)) {
        refreshes++;
      }
    }
    assertEquals(6, refreshes); // 600 s of polling, TTL/3 = 100 s
  }

  @Test
  void maxQueueDepthTurnsNewArrivalsAway() {
    Policy p = new Policy(TTL, 0, 1000, TTL / 3, READY_TIMEOUT, 2);
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    line.arrive(1, 1, "", false, now, p);
    line.arrive(2, 2, "", false, now, p);
    assertEquals(Outcome.REJECTED, Outcome.kind(line.arrive(3, 3, "", false, now, p)));
    assertEquals(2, line.waiting());
  }

  @Test
  void growingAdmitsAtOnceAndShrinkingLetsInFlightWorkFinish() {
    line = new LedgerLine(new InMemoryLine(2));
    assertTrue(line.tryEnter());
    assertTrue(line.tryEnter());
    for (long id = 1; id <= 4; id++) {
      arrive(id);
    }
    line.setCapacity(4, now);
    assertEquals(2, line.ready());
    line.setCapacity(1, now);
    assertEquals(2, line.inFlight(), "nobody is cut off");
    line.exit(now);
    line.exit(now);
    assertEquals(0, line.ready() - 2, "ready clients keep their reserved slots");
    assertEquals(Outcome.ADMITTED, Outcome.kind(line.claim(1, 1, now, POLICY)));
    assertEquals(Outcome.ADMITTED, Outcome.kind(line.claim(2, 2, now, POLICY)));
    line.exit(now);
    line.exit(now);
    assertEquals(1, line.ready(), "back to one slot: only ticket 3 is called");
  }

  @Test
  void removalMovesEveryoneBehindUpAndNobodyAhead() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    for (long id = 1; id <= 5; id++) {
      arrive(id);
    }
    assertTrue(line.remove(3, 3, now));
    assertFalse(line.remove(3, 3, now));
    assertEquals(1, position(1));
    assertEquals(2, position(2));
    assertEquals(3, position(4));
    assertEquals(4, position(5));
    assertEquals(0, line.ready(), "nobody admitted early");
  }

  @Test
  void promotionsLandOnTargetAndLaterPayersTieBehindEarlierOnes() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    for (long id = 1; id <= 10; id++) {
      arrive(id);
    }
    Move a = line.promote(8, 8, 2);
    assertEquals(new Move(8, 2, 10), a);
    Move b = line.promote(9, 9, 2);
    assertEquals(8, b.from(), "the tie ahead of 9 counts as one place");
    assertEquals(2, b.to());
    assertEquals(2, position(2));
    assertEquals(2, position(8));
    assertEquals(2, position(9));
    assertEquals(3, position(3));
    // Intermediate target after earlier promotions, accounting for a removal ahead.
    assertTrue(line.remove(1, 1, now));
    assertEquals(1, position(2));
    Move c = line.promote(10, 10, 2);
    assertEquals(2, c.to());
    assertEquals(2, position(3));
    assertEquals(2, position(10));
    // Admission order within the tie: the earlier payer first, the holder of the place last.
    line.exit(now);
    assertEquals(Outcome.READY, Outcome.kind(line.poll(8, 8, now, POLICY)));
    assertFalse(line.tryEnter());
    assertEquals(1, position(9));
    assertEquals(1, position(2));
    assertEquals(new Move(4, 4, 8), line.promote(5, 5, 9), "a target behind is a no-op");
  }

  @Test
  void readyTicketsCannotBePromotedOrRanked() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    arrive(2);
    arrive(3);
    line.exit(now);
    assertThrows(IllegalStateException.class, () -> line.promote(2, 2, 1));
    assertThrows(IllegalStateException.class, () -> line.rank(2, 2, 3));
  }

  @Test
  void ranksInsertStrictlyAndEqualRanksKeepTheOrderTheyWereRanked() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    for (long id = 1; id <= 6; id++) {
      arrive(id);
    }
    assertTrue(line.rank(5, 5, 2));
    assertEquals(1, position(5));
    assertEquals(2, position(1), "everyone passed moves back exactly one");
    assertEquals(5, position(4));
    assertEquals(6, position(6));
    assertTrue(line.rank(3, 3, 2));
    assertEquals(2, position(3), "equal rank: behind the one ranked earlier");
    assertTrue(line.rank(6, 6, 1));
    assertEquals(3, position(6), "lower rank: behind higher ranks, ahead of the rest");
    assertFalse(line.rank(5, 5, 0), "lowering is recorded, not applied");
    assertEquals(1, position(5));
    arrive(7);
    assertEquals(7, position(7), "new arrivals join behind ranked clients");
  }

  @Test
  void aVipPassJoinsTheFrontGroup() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    arrive(1);
    arrive(2);
    long o = line.arrive(3, 3, "", true, now, POLICY);
    assertTrue(Outcome.has(o, Outcome.PROMOTED));
    assertEquals(1, Outcome.position(o));
    assertEquals(2, position(2));
  }

  @Test
  void queueListsReadyClientsFirstThenTheLineInOrder() {
    line = new LedgerLine(new InMemoryLine(1));
    assertTrue(line.tryEnter());
    for (long id = 1; id <= 4; id++) {
      arrive(id);
    }
    line.exit(now);
    var q = line.queue(3);
    assertEquals(3, q.size());
    assertEquals(0, q.get(0).position());
    assertEquals(1, q.get(1).position());
    assertEquals(2, q.get(2).position());
    assertEquals("k2", q.get(1).clientKey());
    assertEquals(2, line.removeIf(t -> t.position() >= 2, now));
    assertEquals(2, line.queue(10).size());
  }

  /**
   * Metered admissions under contention: fast-path entries, arrivals and claims race the refills;
   * nobody is admitted beyond the allowance granted, and the slots always add up.
   */
  @Test
  void concurrentAdmissionsNeverExceedTheAllowanceGranted() throws Exception {
    line = new LedgerLine(new InMemoryLine(6));
    line.setAllowance(0, now);
    AtomicLong admitted = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong ids = new AtomicLong(1_000);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> work = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      work.add(
          pool.submit(
              () -> {
                go.await();
                List<Long> mine = new ArrayList<>();
                while (!stop.get()) {
                  if (line.tryEnter()) {
                    admitted.incrementAndGet();
                    line.exit(now);
                  } else if (mine.size() < 20) {
                    long id = ids.incrementAndGet();
                    long o = line.arrive(id, id, "", false, now, POLICY);
                    if (Outcome.kind(o) == Outcome.ADMITTED) {
                      admitted.incrementAndGet();
                      line.exit(now);
                    } else {
                      mine.add(id);
                    }
                  }
                  for (int i = 0; i < mine.size(); i++) {
                    long id = mine.get(i);
                    if (Outcome.kind(line.claim(id, id, now, POLICY)) == Outcome.ADMITTED) {
                      admitted.incrementAndGet();
                      line.exit(now);
                      mine.remove(i--);
                    }
                  }
                }
                return null;
              }));
    }
    go.countDown();
    int grants = 1000;
    for (int i = 0; i < grants; i++) {
      line.addAllowance(1, 3, now);
      for (int spin = 0; spin < 20_000 && line.allowance() > 0; spin++) {
        Thread.onSpinWait(); // let the workers use it, now and then
      }
    }
    stop.set(true);
    for (Future<?> f : work) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(admitted.get() > 0, "the line moved");
    assertTrue(
        admitted.get() + line.allowance() + line.ready() <= grants,
        "admitted " + admitted.get() + " + left " + line.allowance() + " > granted " + grants);
    assertEquals(0, line.inFlight());
  }

  /** Once {@code setAllowance(0)} returns, only fast paths already past their check get in. */
  @Test
  void aHoldStopsTheFastPathAtOnce() throws Exception {
    line = new LedgerLine(new InMemoryLine(4));
    AtomicLong admitted = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> work = new ArrayList<>();
    for (int w = 0; w < threads; w++) {
      work.add(
          pool.submit(
              () -> {
                while (!stop.get()) {
                  if (line.tryEnter()) {
                    admitted.incrementAndGet();
                    line.exit(now);
                  }
                }
                return null;
              }));
    }
    while (admitted.get() < 10_000) {
      Thread.onSpinWait();
    }
    line.setAllowance(0, now);
    long atHold = admitted.get();
    long spins = 0;
    while (spins++ < 5_000_000) {
      Thread.onSpinWait();
    }
    long later = admitted.get();
    stop.set(true);
    for (Future<?> f : work) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(later - atHold <= threads, (later - atHold) + " admitted after the hold returned");
    line.setAllowance(Line.UNLIMITED, now);
    assertTrue(line.tryEnter(), "lifted");
    line.exit(now);
  }
}
