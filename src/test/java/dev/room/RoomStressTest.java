package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.LedgerLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.SessionStore.Session;
import dev.room.spi.Tokens;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded random walk over the whole room API, on every line: arrivals (fast path first, as the
 * filter does), polls, claims, exits, paid and operator promotions, ranks, removals, eviction,
 * setters, modes and admission rates (the allowance), export and import into a fresh room, and
 * admission sessions, on a fake clock that moves in small steps and now and then past every
 * timeout.
 *
 * <p>After every step: in-flight + offers never grows past capacity (it may exceed a capacity that
 * shrank under it, but only ever falls then), in-flight equals the requests and sessions the test
 * holds, the line's own invariants hold, and the ledger balances (issued = admitted + retired +
 * live). At the end the line drains to zero: every slot free, no ticket left. A failure names its
 * seed and step, so it replays exactly.
 */
public abstract class RoomStressTest {
  private static final Duration TTL = Duration.ofSeconds(60);
  private static final Duration OFFER = Duration.ofSeconds(10);

  /** A new, empty line with {@code capacity} slots reading {@code clock}. */
  protected abstract Line newLine(int capacity, FakeClock clock);

  /** Checks what only the implementation can see. */
  protected abstract void checkStorage(Line line);

  /** How many seeds, and steps per seed. */
  protected abstract int seeds();

  protected abstract int steps();

  @Test
  void randomOperationsKeepEveryPromiseAndDrainToZero() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          long[] totals = new long[3];
          for (int seed = 1; seed <= seeds(); seed++) {
            Walk w = new Walk(seed, seed % 3 == 0);
            w.run(steps());
            totals[0] += w.issued;
            totals[1] += w.admitted;
            totals[2] += w.retired;
          }
          // The walk must exercise the line, not just idle beside it.
          assertTrue(totals[0] > seeds() * 10L, "tickets issued: " + totals[0]);
          assertTrue(totals[1] > seeds() * 5L, "tickets admitted: " + totals[1]);
          assertTrue(totals[2] > seeds(), "tickets retired: " + totals[2]);
        });
  }

  /** One seeded walk. */
  private final class Walk {
    final long seed;
    final boolean sessionsMode;
    final Random rnd;
    final FakeClock clock;
    final List<long[]> tickets = new ArrayList<>();
    final List<Session> sessions = new ArrayList<>();
    LedgerLine ledger;
    WaitingRoom room;
    int held;
    int step;
    long issued;
    long admitted;
    long retired;
    final java.util.ArrayDeque<String> recent = new java.util.ArrayDeque<>();
    java.nio.file.Path audit;

    Walk(long seed, boolean sessionsMode) {
      this.seed = seed;
      this.sessionsMode = sessionsMode;
      this.rnd = new Random(seed);
      this.clock = new FakeClock(1_700_000_000_000L + rnd.nextInt(1_000_000_000));
      this.room = newRoom(1 + rnd.nextInt(4));
      this.audit = AdmissionLogs.attach(room); // each room's log, verified when it closes
    }

    WaitingRoom newRoom(int capacity) {
      ledger = new LedgerLine(newLine(capacity, clock));
      return WaitingRoom.builder()
          .capacity(capacity)
          .clock(clock)
          .line(ledger)
          .tokenTtl(TTL)
          .offerTimeout(OFFER)
          .admissionMode(sessionsMode ? AdmissionMode.SESSIONS : AdmissionMode.REQUESTS)
          .sessionDuration(Duration.ofSeconds(30))
          .sessionMaxDuration(Duration.ofSeconds(90))
          .rateFunction(depth -> BigDecimal.ONE)
          .passDuration(Duration.ofMinutes(5))
          .build();
    }

    void run(int steps) throws Exception {
      try {
        for (step = 0; step < steps; step++) {
          int before = occupied();
          int dice = rnd.nextInt(100);
          boolean shrank = act(dice);
          recent.addLast(dice + "@" + clock.millis() % 100_000 + (shrank ? "v" : ""));
          if (recent.size() > 16) {
            recent.removeFirst();
          }
          check(before, shrank);
        }
        drain();
        room.close();
        AdmissionLogs.verify(audit);
      } catch (AssertionError | Exception e) {
        throw new AssertionError(
            "seed "
                + seed
                + (sessionsMode ? " (sessions)" : "")
                + ", step "
                + step
                + " after dice "
                + recent
                + ": "
                + e,
            e);
      } finally {
        tally();
        room.close();
      }
    }

    /** One random operation; returns whether it shrank the capacity. */
    boolean act(int dice) throws Exception {
      long now = clock.millis();
      if (dice < 22) {
        arrive();
      } else if (dice < 40) {
        long[] t = pick();
        if (t != null && Outcome.kind(room.poll(t[0], t[1], now)) == Outcome.UNKNOWN) {
          tickets.remove(t);
        }
      } else if (dice < 52) {
        claim();
      } else if (dice < 60) {
        release();
      } else if (dice < 64) {
        long[] t = pick();
        if (t != null) {
          tolerate(() -> room.adminPromote(token(t), 1 + rnd.nextInt(4)));
        }
      } else if (dice < 67) {
        long[] t = pick();
        if (t != null) {
          tolerate(() -> room.promoteToken(token(t), 1 + rnd.nextInt(3)));
        }
      } else if (dice < 70) {
        long[] t = pick();
        if (t != null) {
          tolerate(() -> room.setTicketRank(token(t), rnd.nextInt(4)));
        }
      } else if (dice < 73) {
        long[] t = pick();
        if (t != null && room.removeToken(token(t))) {
          tickets.remove(t);
        }
      } else if (dice < 74) {
        int digit = rnd.nextInt(16);
        room.removeTokensIf(i -> Character.digit(i.token().charAt(31), 16) == digit);
        tickets.removeIf(t -> Character.digit(token(t).charAt(31), 16) == digit);
      } else if (dice < 80) {
        clock.advanceMillis(rnd.nextInt(4000));
      } else if (dice < 82) {
        clock.advanceMillis(OFFER.toMillis() + rnd.nextInt((int) TTL.toMillis()));
      } else if (dice < 86) {
        room.evictExpired();
      } else if (dice < 89) {
        int before = room.capacity();
        int next = 1 + rnd.nextInt(5);
        room.setCapacity(next);
        return next < before;
      } else if (dice < 92) {
        room.setMode(rnd.nextInt(3) == 0 ? RoomMode.PAUSED : RoomMode.OPEN);
      } else if (dice < 94) {
        room.setAdmissionRate(rnd.nextBoolean() ? 0 : 0.5 + rnd.nextInt(4));
      } else if (dice < 96) {
        room.setOfferTimeout(rnd.nextBoolean() ? OFFER : Duration.ofSeconds(5));
        room.setMaxQueueDepth(rnd.nextInt(3) == 0 ? 5 : 0);
      } else if (dice < 98) {
        endSession();
      } else if (dice < 99) {
        restart();
      } else {
        room.grantPass();
      }
      return false;
    }

    void arrive() {
      if (room.tryEnter()) {
        admitted("");
        return;
      }
      long[] t = Tokens.generate();
      String token = Tokens.format(t[0], t[1]);
      long o = room.arrive(t[0], t[1], token, "k" + rnd.nextInt(5), false, false);
      switch (Outcome.kind(o)) {
        case Outcome.ADMITTED -> admitted(token);
        case Outcome.WAITING -> tickets.add(t);
        default -> {}
      }
    }

    void claim() {
      long[] t = pick();
      if (t == null) {
        return;
      }
      long o = room.claim(t[0], t[1], clock.millis());
      int kind = Outcome.kind(o);
      if (kind == Outcome.ADMITTED) {
        tickets.remove(t);
        admitted(token(t));
      } else if (kind == Outcome.UNKNOWN) {
        tickets.remove(t);
      }
    }

    /** A slot was taken: a request holds it, or a session starts on it. */
    void admitted(String token) {
      if (sessionsMode) {
        sessions.add(room.sessions().start(token, clock.millis()));
      } else {
        held++;
      }
    }

    void release() {
      if (held > 0) {
        held--;
        room.exit();
      }
    }

    void endSession() {
      sessions.removeIf(Session::ended);
      if (!sessions.isEmpty()) {
        Session s = sessions.remove(rnd.nextInt(sessions.size()));
        if (rnd.nextBoolean()) {
          room.endSession(s.id());
        } else {
          room.sessions().end(s, "left");
        }
      }
    }

    /** Export, stop (every request and session ends with the process), import into a new room. */
    void restart() throws Exception {
      tally();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      room.exportTo(out);
      int capacity = room.capacity();
      room.close();
      AdmissionLogs.verify(audit);
      held = 0;
      sessions.clear();
      room = newRoom(capacity);
      audit = AdmissionLogs.attach(room); // the import writes its checkpoint into the log
      room.importFrom(new ByteArrayInputStream(out.toByteArray()));
    }

    void check(int before, boolean shrank) {
      Line line = ledger.delegate();
      sessions.removeIf(Session::ended);
      // A shared store's sweep ends a session in the store, not the copy this walk holds: one past
      // its expiry that the store no longer has was swept.
      long now = clock.millis();
      line.sharedSessions()
          .ifPresent(
              store ->
                  sessions.removeIf(s -> now >= s.expiresAt() && store.get(s.id(), now) == null));
      int occupied = occupied();
      assertTrue(line.inFlight() >= 0, "in-flight " + line.inFlight());
      assertEquals(held + sessions.size(), line.inFlight(), "in-flight = requests + sessions held");
      assertEquals(sessions.size(), room.activeSessions(), "active sessions");
      // A line that shares sessions (Redis) holds the room's: the walk runs them there, not in a
      // store of this process's own.
      line.sharedSessions()
          .ifPresent(
              store ->
                  assertEquals(sessions.size(), store.count(), "sessions in the line's store"));
      if (!shrank) {
        assertTrue(
            occupied <= room.capacity() || occupied <= before,
            "in-flight + offers " + occupied + " grew past capacity " + room.capacity());
      }
      ledger.checkLedger();
      checkStorage(line);
    }

    /** Everything ends: requests finish, sessions end, every client comes back and goes in. */
    void drain() {
      room.setMode(RoomMode.OPEN);
      room.setAdmissionRate(0);
      room.setMaxQueueDepth(0);
      while (held > 0) {
        release();
      }
      for (Session s : sessions) {
        room.sessions().end(s, "left");
      }
      sessions.clear();
      for (int round = 0; round < 10_000 && !tickets.isEmpty(); round++) {
        clock.advanceMillis(1000);
        for (long[] t : List.copyOf(tickets)) {
          room.poll(t[0], t[1], clock.millis());
          long o = room.claim(t[0], t[1], clock.millis());
          if (Outcome.kind(o) == Outcome.ADMITTED) {
            admitted(token(t));
            release();
            sessions.forEach(s -> room.sessions().end(s, "completed"));
            sessions.clear();
          }
          if (Outcome.kind(o) != Outcome.WAITING) {
            tickets.remove(t);
          }
        }
        check(occupied(), false);
      }
      Line line = ledger.delegate();
      assertEquals(0, line.live(), "tickets left after draining");
      assertEquals(0, line.inFlight(), "in-flight after draining");
      assertEquals(line.capacity(), line.freeSlots(), "free slots after draining");
      ledger.checkLedger();
    }

    /** Adds the current line's ledger to the walk's totals (a restart starts a new line). */
    void tally() {
      issued += ledger.issued();
      admitted += ledger.admitted();
      retired += ledger.retired();
    }

    int occupied() {
      Line line = ledger.delegate();
      return line.inFlight() + (int) line.ready();
    }

    long[] pick() {
      return tickets.isEmpty() ? null : tickets.get(rnd.nextInt(tickets.size()));
    }
  }

  private static String token(long[] t) {
    return Tokens.format(t[0], t[1]);
  }

  /** Runs a move that may be refused for a client already told it is ready, or gone. */
  private static void tolerate(Runnable move) {
    try {
      move.run();
    } catch (TokenNotFoundException | IllegalStateException expected) {
      // a ready or departed client cannot move: the contract's answer, not a failure
    }
  }
}
