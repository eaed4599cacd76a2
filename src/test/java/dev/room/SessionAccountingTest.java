package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.Outcome;
import dev.room.spi.SessionStore.Session;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Capacity accounting in SESSIONS mode: exactly-once returns, and used = active + offers. */
class SessionAccountingTest {
  private final FakeClock clock = new FakeClock(987_654_321_000L);

  private WaitingRoom room(int capacity) {
    return WaitingRoom.builder()
        .capacity(capacity)
        .clock(clock)
        .admissionMode(AdmissionMode.SESSIONS)
        .offerTimeout(Duration.ofSeconds(30))
        .sessionDuration(Duration.ofMinutes(2))
        .sessionMaxDuration(Duration.ofMinutes(5))
        .build();
  }

  @Test
  void leaveRevokeCompleteEndAndExpiryRacingReturnEachSlotExactlyOnce() {
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> race());
  }

  private void race() throws Exception {
    int capacity = 4;
    for (int round = 0; round < 200; round++) {
      try (WaitingRoom r = room(capacity)) {
        AtomicInteger ends = new AtomicInteger();
        r.on(Event.SESSION_END, s -> ends.incrementAndGet());
        r.on(Event.SESSION_EXPIRE, s -> ends.incrementAndGet());
        List<Session> sessions = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
          assertTrue(r.tryEnter());
          sessions.add(r.sessions().start("", clock.millis()));
        }
        FakeClock late = new FakeClock(clock.millis() + Duration.ofMinutes(10).toMillis());
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (Session s : sessions) {
          threads.add(new Thread(() -> awaitThen(go, () -> r.sessions().end(s, "left"))));
          threads.add(new Thread(() -> awaitThen(go, () -> r.sessions().end(s, "revoked"))));
          threads.add(new Thread(() -> awaitThen(go, () -> r.sessions().end(s, "completed"))));
          threads.add(new Thread(() -> awaitThen(go, () -> r.endSession(s.id()))));
        }
        threads.add(new Thread(() -> awaitThen(go, () -> r.sessions().sweep(late.millis()))));
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread t : threads) {
          t.join();
        }
        assertTrue(r.events().awaitIdle(5000));
        assertEquals(capacity, ends.get(), "one end per session, round " + round);
        assertEquals(capacity, r.line().freeSlots(), "every slot back exactly once");
        assertEquals(0, r.activeSessions());
      }
    }
  }

  private static void awaitThen(CountDownLatch go, Runnable r) {
    try {
      go.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    r.run();
  }

  /** Random arrivals, polls, claims, session ends and clock moves: used = active + offers. */
  @ParameterizedTest
  @ValueSource(longs = {3, 14, 159, 2653})
  void capacityUsedIsActiveSessionsPlusOutstandingOffersAtEveryStep(long seed) {
    Random rnd = new Random(seed);
    int capacity = 1 + rnd.nextInt(4);
    try (WaitingRoom r = room(capacity)) {
      List<long[]> tickets = new ArrayList<>();
      List<Session> live = new ArrayList<>();
      for (int step = 0; step < 3000; step++) {
        int op = rnd.nextInt(100);
        long now = clock.millis();
        if (op < 25) {
          if (r.tryEnter()) {
            live.add(r.sessions().start("", now));
          } else {
            long[] t = Tokens.generate();
            long o = r.arrive(t[0], t[1], Tokens.format(t[0], t[1]), "", false, false);
            if (Outcome.kind(o) == Outcome.ADMITTED) {
              live.add(r.sessions().start(Tokens.format(t[0], t[1]), now));
            } else {
              tickets.add(t);
            }
          }
        } else if (op < 55 && !tickets.isEmpty()) {
          long[] t = tickets.get(rnd.nextInt(tickets.size()));
          long o = r.poll(t[0], t[1], now);
          if (Outcome.kind(o) == Outcome.READY && rnd.nextBoolean()) {
            if (Outcome.kind(r.claim(t[0], t[1], now)) == Outcome.ADMITTED) {
              live.add(r.sessions().start(Tokens.format(t[0], t[1]), now));
            }
          }
          if (Outcome.kind(o) == Outcome.UNKNOWN) {
            tickets.remove(t);
          }
        } else if (op < 70 && !live.isEmpty()) {
          Session s = live.remove(rnd.nextInt(live.size()));
          r.sessions().end(s, rnd.nextBoolean() ? "left" : "completed");
        } else if (op < 90) {
          clock.advance(Duration.ofSeconds(1 + rnd.nextInt(20)));
        } else {
          r.evictExpired();
          live.removeIf(Session::ended);
        }
        int used = r.capacity() - r.line().freeSlots();
        assertEquals(
            r.activeSessions() + r.outstandingOffers(),
            used,
            "step " + step + ": capacity used must be active sessions + outstanding offers");
        assertEquals(0, r.inFlight());
      }
    }
  }
}
