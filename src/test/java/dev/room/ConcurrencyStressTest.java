package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Dozens of threads arrive, poll, come back when called, and abandon (some the moment they are told
 * to come in) while a driver thread moves a fake clock and runs every reaper pass (the room's own
 * reaper is on a {@link ManualTimer} that never moves, so no pass runs on real time). At every
 * sample in-flight stays within capacity (counted by the room and independently by the "app");
 * every ticket ends exactly once; at the end the line is empty and a newcomer walks straight in.
 */
class ConcurrencyStressTest {
  private static final int CAPACITY = 3;
  private static final int THREADS = 32;
  private static final int CLIENTS_PER_THREAD = 60;

  @Test
  void invariantsHoldUnderConcurrentChurn() {
    // a bound against a hang, not a speed test: 32 threads spinning on fake time take 10-90 s of
    // real time at a load of 40 on 2 cores
    assertTimeoutPreemptively(Duration.ofSeconds(300), this::run);
  }

  private void run() throws Exception {
    FakeClock clock = new FakeClock(Long.MAX_VALUE / 2 + 12345);
    InMemoryLine line = new InMemoryLine(CAPACITY);
    ManualTimer reaper = new ManualTimer();
    WaitingRoom room =
        WaitingRoom.builder()
            .line(line)
            .capacity(CAPACITY)
            .clock(clock)
            .offerTimeout(Duration.ofSeconds(5))
            .firstPollGrace(Duration.ofSeconds(10))
            // never advanced: the room's own reaper would run on real time and end tickets that
            // the count below never sees; every pass is this driver's, on the fake clock
            .reaperTimer(reaper)
            .build();
    AtomicInteger app = new AtomicInteger();
    AtomicInteger appMax = new AtomicInteger();
    AtomicLong issued = new AtomicLong();
    AtomicLong claimed = new AtomicLong();
    AtomicLong endedByPoll = new AtomicLong();
    AtomicLong endedByReaper = new AtomicLong();
    AtomicLong violations = new AtomicLong();
    CountDownLatch done = new CountDownLatch(THREADS);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      SplittableRandom rnd = new SplittableRandom(1000 + i);
      Thread t =
          new Thread(
              () -> {
                try {
                  for (int c = 0; c < CLIENTS_PER_THREAD; c++) {
                    client(room, rnd, app, appMax, issued, claimed, endedByPoll);
                  }
                } finally {
                  done.countDown();
                }
              });
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    long samples = 0;
    while (done.getCount() > 0) {
      clock.advanceMillis(50);
      if (room.inFlight() > CAPACITY || app.get() > CAPACITY) {
        violations.incrementAndGet();
      }
      if (++samples % 20 == 0) {
        endedByReaper.addAndGet(room.evictExpired());
      }
      Thread.yield();
    }
    for (Thread t : threads) {
      t.join();
    }
    // Everyone still holding a ticket has abandoned: let the reaper end them.
    clock.advance(Duration.ofMinutes(6));
    endedByReaper.addAndGet(room.evictExpired());

    assertTrue(claimed.get() > issued.get() / 2, "most queued clients were admitted: " + claimed);
    assertEquals(0, violations.get(), "in-flight exceeded capacity at some sample");
    assertTrue(appMax.get() <= CAPACITY, "app saw " + appMax.get() + " at once");
    assertEquals(0, room.liveQueueDepth(), "the line drains to zero");
    assertEquals(0, room.inFlight());
    assertEquals(
        issued.get(),
        claimed.get() + endedByPoll.get() + endedByReaper.get(),
        "every ticket ends exactly once");
    assertEquals(0, reaper.ran(), "no reaper pass ran behind the count's back");
    line.checkInvariants();
    assertTrue(room.tryEnter(), "a newcomer is admitted immediately");
    room.exit();
    room.close();
  }

  private static void client(
      WaitingRoom room,
      SplittableRandom rnd,
      AtomicInteger app,
      AtomicInteger appMax,
      AtomicLong issued,
      AtomicLong claimed,
      AtomicLong endedByPoll) {
    if (room.tryEnter()) {
      work(room, app, appMax, rnd);
      return;
    }
    long[] tok = Tokens.generate();
    long o = room.arrive(tok[0], tok[1], "", "", false, false);
    if (Outcome.kind(o) == Outcome.ADMITTED) {
      work(room, app, appMax, rnd);
      return;
    }
    issued.incrementAndGet();
    boolean abandonWhenCalled = rnd.nextInt(8) == 0;
    boolean neverPoll = rnd.nextInt(12) == 0;
    long giveUpAt =
        rnd.nextInt(6) == 0 ? room.clock().millis() + rnd.nextInt(60_000) : Long.MAX_VALUE;
    if (neverPoll) {
      return;
    }
    while (true) {
      long p = room.poll(tok[0], tok[1], room.clock().millis());
      int kind = Outcome.kind(p);
      if (kind == Outcome.UNKNOWN) {
        countRetired(p, endedByPoll); // a slow thread's ticket may have expired meanwhile
        return;
      }
      if (kind == Outcome.READY) {
        if (abandonWhenCalled) {
          return;
        }
        long c = room.claim(tok[0], tok[1], room.clock().millis());
        if (Outcome.kind(c) == Outcome.ADMITTED) {
          claimed.incrementAndGet();
          work(room, app, appMax, rnd);
        } else {
          countRetired(c, endedByPoll); // timed out between the poll and the claim
        }
        return;
      }
      if (room.clock().millis() >= giveUpAt) {
        return; // gives up while waiting
      }
      Thread.yield();
    }
  }

  /** Counts a ticket this call retired; one retired earlier by the reaper was counted there. */
  private static void countRetired(long outcome, AtomicLong counter) {
    if (Outcome.has(outcome, Outcome.EVICTED)) { // a lapsed offer (TIMED_OUT) ends nothing
      counter.incrementAndGet();
    }
  }

  private static void work(
      WaitingRoom room, AtomicInteger app, AtomicInteger appMax, SplittableRandom rnd) {
    int now = app.incrementAndGet();
    appMax.accumulateAndGet(now, Math::max);
    long until = room.clock().millis() + 50 + rnd.nextInt(400); // holds the slot in fake time
    while (room.clock().millis() < until) {
      Thread.yield();
    }
    app.decrementAndGet();
    room.exit();
  }
}
