package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.engine.InMemorySessionStore;
import dev.room.spi.SessionStore.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session-store contract, run on every implementation: each test sees one room through two
 * instances (two lines of one Redis room; the in-memory line is one instance seen twice), so a
 * session started on one is ended, renewed and counted on the other. After every test the line's
 * storage invariants hold and every slot a session held is back.
 */
public abstract class SessionStoreContractTest {
  private static final long MINUTE = 60_000;

  /** {@code n} instances' lines of one fresh room of {@code capacity} slots. */
  protected abstract List<Line> instances(int n, int capacity, FakeClock clock);

  /** Checks the storage invariants of {@code line} (a no-op where there are none to check). */
  protected void checkStorage(Line line) {}

  private final FakeClock clock = new FakeClock(1_700_000_000_123L);
  private final Map<Line, SessionStore> stores = new IdentityHashMap<>();
  private final List<Line> lines = new ArrayList<>();
  private int ids;

  @AfterEach
  void checkAndClose() {
    try {
      for (Line l : lines) {
        checkStorage(l);
      }
    } finally {
      for (Line l : new HashSet<>(stores.keySet())) {
        l.close();
      }
    }
  }

  private List<SessionStore> room(int n, int capacity) {
    lines.addAll(instances(n, capacity, clock));
    List<SessionStore> out = new ArrayList<>();
    for (Line l : lines) {
      out.add(
          stores.computeIfAbsent(
              l, x -> x.sharedSessions().orElseGet(() -> new InMemorySessionStore(x::exit))));
    }
    return out;
  }

  /** A slot taken on instance {@code i}, then a session on it. */
  private Session start(SessionStore store, int i, String ticket, long duration, long max) {
    assertTrue(lines.get(i).tryEnter(), "a slot is free");
    return store.start("s" + (ids++), ticket, clock.millis(), duration, max);
  }

  private int inFlight(int i) {
    Line l = lines.get(i);
    l.freeSlots();
    l.waiting(); // a shared line's counters refresh on a read
    return l.inFlight();
  }

  @Test
  void aSessionHoldsItsSlotUntilItEndsAndItEndsOnce() {
    List<SessionStore> s = room(2, 3);
    Session a = start(s.get(0), 0, "t1", 10 * MINUTE, 60 * MINUTE);
    assertEquals(1, inFlight(0));
    assertEquals(1, s.get(1).count());
    assertEquals(a.id(), s.get(1).get(a.id(), clock.millis()).id());
    assertEquals(a.id(), s.get(1).byTicket("t1", clock.millis()).id());
    assertEquals(0, a.generation());
    assertEquals(clock.millis() + 10 * MINUTE, a.expiresAt());
    assertEquals(clock.millis() + 60 * MINUTE, a.maxAt());

    assertTrue(s.get(1).end(s.get(1).get(a.id(), clock.millis()), clock.millis()));
    assertFalse(s.get(0).end(a, clock.millis()), "ended already, elsewhere");
    assertFalse(s.get(1).end(a, clock.millis()));
    assertEquals(0, s.get(0).count());
    assertEquals(0, inFlight(1), "the slot came back once");
    assertNull(s.get(0).byTicket("t1", clock.millis()));
    clock.advanceMillis(RedisStaleness.MILLIS);
    assertNull(s.get(0).get(a.id(), clock.millis()));
  }

  @Test
  void aSessionOfANewcomerHasNoTicketToResume() {
    List<SessionStore> s = room(1, 2);
    Session a = start(s.get(0), 0, "", 10 * MINUTE, 60 * MINUTE);
    assertEquals("", a.ticket());
    assertNull(s.get(0).byTicket("", clock.millis()));
    assertTrue(s.get(0).end(a, clock.millis()));
    assertEquals(0, inFlight(0));
  }

  @Test
  void racingEndingsOnTwoInstancesEndEachSessionExactlyOnce() {
    int n = 16;
    List<SessionStore> s = room(2, n);
    List<Session> started = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      started.add(start(s.get(i % 2), i % 2, "t" + i, MINUTE, MINUTE));
    }
    long late = clock.millis() + MINUTE; // the sweeps and expiries find every session due
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger wins = new AtomicInteger();
    Set<String> swept = ConcurrentHashMap.newKeySet();
    List<Thread> threads = new ArrayList<>();
    for (Session x : started) {
      for (SessionStore store : s) {
        threads.add(new Thread(() -> race(go, () -> store.end(x, late), wins)));
        threads.add(new Thread(() -> race(go, () -> store.expire(x, late), wins)));
      }
    }
    for (SessionStore store : s) {
      threads.add(
          new Thread(
              () -> {
                await(go);
                for (String id : store.sweep(late)) {
                  assertTrue(swept.add(id), "swept twice: " + id);
                  wins.incrementAndGet();
                }
              }));
    }
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          threads.forEach(Thread::start);
          go.countDown();
          for (Thread t : threads) {
            t.join();
          }
        });
    assertEquals(n, wins.get(), "each session ended exactly once");
    assertEquals(0, s.get(0).count());
    assertEquals(0, inFlight(0), "each slot came back exactly once");
    assertEquals(0, inFlight(1));
  }

  private static void race(
      CountDownLatch go, java.util.function.BooleanSupplier end, AtomicInteger w) {
    await(go);
    if (end.getAsBoolean()) {
      w.incrementAndGet();
    }
  }

  private static void await(CountDownLatch go) {
    try {
      go.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aSessionExpiresAtItsTimeAndNotBefore() {
    List<SessionStore> s = room(2, 2);
    Session a = start(s.get(0), 0, "t1", MINUTE, 10 * MINUTE);
    Session b = start(s.get(1), 1, "t2", 2 * MINUTE, 10 * MINUTE);
    clock.advanceMillis(MINUTE - 1);
    assertEquals(List.of(), s.get(1).sweep(clock.millis()));
    assertFalse(s.get(1).expire(a, clock.millis()), "its time is not up");
    clock.advanceMillis(1);
    assertEquals(List.of(a.id()), s.get(1).sweep(clock.millis()));
    assertEquals(List.of(), s.get(0).sweep(clock.millis()), "swept once, fleet-wide");
    assertFalse(s.get(0).expire(a, clock.millis()));
    assertEquals(1, s.get(0).count());
    assertEquals(1, inFlight(0));
    clock.advanceMillis(MINUTE);
    assertTrue(s.get(0).expire(b, clock.millis()), "an expiry through any instance");
    assertEquals(0, s.get(1).count());
    assertEquals(0, inFlight(1));
  }

  @Test
  void renewalSlidesInStepsUpToTheLimitAndNeverRevives() {
    List<SessionStore> s = room(2, 1);
    long t0 = clock.millis();
    Session a = start(s.get(0), 0, "t1", MINUTE, 3 * MINUTE);
    clock.advanceMillis(SessionStore.SLIDE_STEP_MILLIS - 1);
    assertEquals(t0 + MINUTE, s.get(0).renew(a, clock.millis(), MINUTE), "less than a step");
    clock.advanceMillis(1);
    assertEquals(t0 + MINUTE + 1000, s.get(0).renew(a, clock.millis(), MINUTE));
    assertEquals(t0 + MINUTE + 1000, a.expiresAt());

    // renewed on the other instance, through its own copy: both instances see the later expiry
    clock.advanceMillis(30_000);
    Session seenOnB = s.get(1).get(a.id(), clock.millis());
    assertEquals(clock.millis() + MINUTE, s.get(1).renew(seenOnB, clock.millis(), MINUTE));
    clock.advanceMillis(RedisStaleness.MILLIS);
    assertEquals(seenOnB.expiresAt(), s.get(0).get(a.id(), clock.millis()).expiresAt());
    long before = a.expiresAt();
    assertTrue(s.get(0).renew(a, clock.millis(), MINUTE) >= before, "never back");

    // up to the absolute limit, the last stretch even by less than a step
    clock.advanceMillis(58_000); // t0 + 90 s, before its expiry at t0 + 91 s
    assertEquals(t0 + 179_500, s.get(0).renew(a, clock.millis(), t0 + 179_500 - clock.millis()));
    clock.advanceMillis(100);
    assertEquals(t0 + 3 * MINUTE, s.get(1).renew(seenOnB, clock.millis(), 2 * MINUTE));
    assertEquals(t0 + 3 * MINUTE, s.get(0).renew(a, clock.millis(), 10 * MINUTE), "not past it");

    clock.advanceMillis(90_000);
    assertEquals(t0 + 3 * MINUTE, s.get(1).renew(a, clock.millis(), MINUTE), "its time is up");
    assertTrue(s.get(1).expire(a, clock.millis()));
    assertEquals(0, inFlight(0));
  }

  @Test
  void aNewGenerationEndsEverySessionEverywhere() {
    List<SessionStore> s = room(3, 4);
    Session a = start(s.get(0), 0, "t1", MINUTE, MINUTE);
    Session b = start(s.get(1), 1, "t2", MINUTE, MINUTE);
    assertEquals(0, s.get(1).generation());
    Set<String> ended = new HashSet<>();
    assertEquals(1, s.get(0).newGeneration(clock.millis(), ended::add));
    assertEquals(Set.of(a.id(), b.id()), ended);
    assertEquals(0, s.get(1).count());
    assertEquals(0, inFlight(0));
    assertFalse(s.get(1).end(b, clock.millis()), "ended by the generation");
    clock.advanceMillis(RedisStaleness.MILLIS);
    assertEquals(1, s.get(1).generation(), "within a poll interval on every instance");
    Session c = start(s.get(1), 1, "t3", MINUTE, MINUTE);
    assertEquals(1, c.generation());
    assertEquals(2, s.get(1).newGeneration(clock.millis(), id -> {}));
    assertEquals(2, s.get(0).generation());
    assertEquals(2, s.get(2).generation(), "an instance that never asked before");
  }

  @Test
  void everyInstanceSignsWithTheSecretTheFirstProposed() {
    List<SessionStore> s = room(2, 1);
    byte[] first = new byte[32];
    byte[] second = new byte[32];
    second[0] = 1;
    byte[] one = s.get(0).sharedSecret(first);
    byte[] other = s.get(1).sharedSecret(second);
    assertNotNull(one);
    assertArrayEquals(first, one);
    if (lines.get(0) != lines.get(1)) { // a shared store: the first proposal stands for all
      assertArrayEquals(one, other, "instances of one room share the secret");
      assertArrayEquals(one, s.get(0).sharedSecret(second));
    }
  }

  /** How long a shared store's copy of a session may be stale: one poll interval. */
  static final class RedisStaleness {
    static final long MILLIS = 1000;
  }
}
