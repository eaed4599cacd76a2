package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.Outcome;
import dev.room.spi.SessionStore.Session;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/** Claims, grants and expiry of admission sessions, without HTTP. */
class SessionClaimTest {
  private final FakeClock clock = new FakeClock(987_654_321_000L);

  private WaitingRoom room(int capacity) {
    return WaitingRoom.builder()
        .capacity(capacity)
        .clock(clock)
        .admissionMode(AdmissionMode.SESSIONS)
        .sessionDuration(Duration.ofMinutes(10))
        .sessionMaxDuration(Duration.ofMinutes(60))
        .build();
  }

  /** A ticket told it is ready, in a room whose other slots are {@code spare}. */
  private static String offered(WaitingRoom r, int spare) {
    Session holder = null;
    while (r.tryEnter()) {
      holder = r.sessions().start("", r.clock().millis());
    }
    long[] t = Tokens.generate();
    String ticket = Tokens.format(t[0], t[1]);
    assertEquals(Outcome.WAITING, Outcome.kind(r.arrive(t[0], t[1], ticket, "", false, false)));
    r.sessions().end(holder, "left");
    r.setCapacity(r.capacity() + spare);
    assertEquals(Outcome.READY, Outcome.kind(r.poll(t[0], t[1], r.clock().millis())));
    return ticket;
  }

  @Test
  void twoConcurrentClaimsOfOneTicketStartTwoSessions() {
    assertTimeoutPreemptively(Duration.ofSeconds(60), this::claimRace);
  }

  private void claimRace() throws Exception {
    int threads = 4;
    for (int round = 0; round < 200; round++) {
      try (WaitingRoom r = room(1)) {
        String ticket = offered(r, round % 2); // with and without a spare slot
        CyclicBarrier go = new CyclicBarrier(threads);
        Set<String> ids = ConcurrentHashMap.newKeySet();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          ts.add(
              new Thread(
                  () -> {
                    try {
                      go.await();
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                    Sessions.Claim c = r.sessions().claim(ticket, clock.millis());
                    ids.add(c.session() == null ? "none" : c.session().id());
                  }));
        }
        ts.forEach(Thread::start);
        for (Thread t : ts) {
          t.join();
        }
        assertEquals(1, ids.size(), "round " + round + ": every claim got one session " + ids);
        assertEquals(1, r.activeSessions(), "round " + round);
        assertEquals(0, r.outstandingOffers());
        assertEquals(
            r.activeSessions() + r.outstandingOffers(), r.capacity() - r.line().freeSlots());
      }
    }
  }

  @Test
  void aSlidingSessionOutlivesItsOnlyGrant() {
    try (WaitingRoom r = room(1)) {
      assertTrue(r.tryEnter());
      Session s = r.sessions().start("", clock.millis());
      long first = s.expiresAt();
      clock.advance(Duration.ofMinutes(4));
      long until = r.sessions().renew(s, clock.millis(), first);
      assertEquals(s.expiresAt(), until, "the session slid past its grant: a new one goes out");
      assertEquals(clock.millis() + Duration.ofMinutes(10).toMillis(), until);
      assertEquals(Sessions.NO_GRANT, r.sessions().renew(s, clock.millis() + 10, until));
      String old = r.sessions().grant(s, clock.millis(), first);
      clock.advance(Duration.ofSeconds(390)); // the old grant ran out; the session did not
      Sessions.Admitted a = r.sessions().check(old, clock.millis());
      assertNotNull(a, "the registry decides for a genuine grant of a live session");
      assertEquals(s, a.session());
    }
  }

  @Test
  void anExpiredSessionComesBackWithItsTicketAlone() {
    try (WaitingRoom r = room(1)) {
      String ticket = offered(r, 0);
      Session s = r.sessions().claim(ticket, clock.millis()).session();
      assertNotNull(s);
      clock.advance(Duration.ofMinutes(11));
      Sessions.Claim again = r.sessions().claim(ticket, clock.millis());
      assertNull(again.session(), "an expired session is not resumed by its ticket");
      assertEquals(Outcome.UNKNOWN, Outcome.kind(again.outcome()));
      assertTrue(s.ended());
      assertEquals(0, r.activeSessions());
      assertEquals(1, r.line().freeSlots(), "its slot came back at once");
    }
  }
}
