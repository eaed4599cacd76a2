package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.TicketInfo;
import dev.room.TokenNotFoundException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Line} must have, whatever keeps its state. Each implementation extends
 * this class with a factory; every test ends with the line's invariants checked.
 *
 * <p>Time comes from a {@link FakeClock} passed to every call (and to the factory, for lines that
 * read a clock of their own), so nothing here sleeps.
 */
public abstract class LineContractTest {
  protected static final long TTL = 300_000;
  protected static final long OFFER = 60_000;

  protected final FakeClock clock = new FakeClock();
  protected final Policy policy = new Policy(TTL, 0, 1000, 100_000, OFFER, 0);
  private final List<LedgerLine> lines = new ArrayList<>();

  /** A new, empty line with {@code capacity} slots reading {@code clock}. */
  protected abstract Line newLine(int capacity, FakeClock clock);

  /** Checks what only the implementation can see; called after every test. */
  protected abstract void checkStorage(Line line);

  /**
   * A new line under test, wrapped in a {@link LedgerLine} so that every test ends with {@code
   * issued = admitted + retired + live} checked.
   */
  protected Line line(int capacity) {
    LedgerLine l = new LedgerLine(newLine(capacity, clock));
    lines.add(l);
    return l;
  }

  @AfterEach
  void checkInvariantsAndClose() {
    try {
      for (LedgerLine l : lines) {
        assertInvariants(l);
        l.checkLedger();
        checkStorage(l.delegate());
      }
    } finally {
      lines.forEach(Line::close);
    }
  }

  /**
   * In-flight ≥ 0, free = capacity − in-flight − ready, no free slot while clients wait unless the
   * allowance holds them, positions contiguous from 1.
   */
  protected static void assertInvariants(Line l) {
    long waiting = l.waiting();
    long ready = l.ready();
    assertTrue(l.inFlight() >= 0, "in-flight " + l.inFlight());
    assertEquals(l.capacity() - l.inFlight() - ready, l.freeSlots(), "free slots");
    if (waiting > 0 && l.allowance() > 0) {
      assertTrue(l.freeSlots() <= 0, "a slot sits free while " + waiting + " wait");
    }
    assertTrue(l.allowance() >= 0, "allowance " + l.allowance());
    List<TicketInfo> q = l.queue(Integer.MAX_VALUE);
    assertEquals(waiting + ready, q.size(), "queue size");
    long previous = 0;
    for (int i = 0; i < q.size(); i++) {
      long p = q.get(i).position();
      if (i < ready) {
        assertEquals(0, p, "ready clients come first");
      } else {
        assertTrue(p == previous || p == previous + 1, "positions " + previous + " then " + p);
        previous = p;
      }
    }
    if (waiting > 0) {
      assertEquals(1, q.get((int) ready).position(), "the first waiting client is 1");
    }
  }

  // ── Helpers ────────────────────────────────────────────────────────────

  /** A client holding a token. */
  protected record Client(long hi, long lo) {
    static Client fresh() {
      long[] t = Tokens.generate();
      return new Client(t[0], t[1]);
    }

    String token() {
      return Tokens.format(hi, lo);
    }
  }

  protected long now() {
    return clock.millis();
  }

  protected long arrive(Line l, Client c) {
    return l.arrive(c.hi(), c.lo(), "key-" + c.token().substring(0, 4), false, now(), policy);
  }

  protected Client waiter(Line l, long expectedPosition) {
    Client c = Client.fresh();
    long o = arrive(l, c);
    assertEquals(Outcome.WAITING, Outcome.kind(o));
    assertEquals(expectedPosition, Outcome.position(o));
    return c;
  }

  protected long poll(Line l, Client c) {
    return l.poll(c.hi(), c.lo(), now(), policy);
  }

  protected long positionOf(Line l, Client c) {
    TicketInfo t = l.ticket(c.hi(), c.lo());
    assertNotNull(t, "ticket in line");
    return t.position();
  }

  protected static List<String> order(Line l) {
    List<String> out = new ArrayList<>();
    for (TicketInfo t : l.queue(Integer.MAX_VALUE)) {
      out.add(t.token());
    }
    return out;
  }

  protected static List<String> tokens(Client... cs) {
    List<String> out = new ArrayList<>();
    for (Client c : cs) {
      out.add(c.token());
    }
    return out;
  }

  /** Fills every slot through the fast path. */
  protected static void fill(Line l) {
    while (l.tryEnter()) {
      // take the next one
    }
  }

  // ── Slots and the fast path ────────────────────────────────────────────

  @Test
  void fastPathTakesFreeSlotsOnlyWhileNobodyWaits() {
    Line l = line(2);
    assertFalse(l.used());
    assertTrue(l.tryEnter());
    assertTrue(l.tryEnter());
    assertFalse(l.tryEnter());
    assertTrue(l.used());
    assertEquals(2, l.inFlight());
    assertEquals(0, l.freeSlots());

    Client a = waiter(l, 1);
    l.exit(now());
    long told = poll(l, a);
    assertEquals(Outcome.READY, Outcome.kind(told), "the freed slot went to the waiter");
    assertTrue(Outcome.has(told, Outcome.FIRST_READY), "the first poll to tell it says so");
    assertFalse(Outcome.has(poll(l, a), Outcome.FIRST_READY), "and only the first");
    assertFalse(l.tryEnter(), "the slot is reserved for the ready client");
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(a.hi(), a.lo(), now(), policy)));
    assertEquals(2, l.inFlight());
    l.exit(now());
    l.exit(now());
    assertEquals(0, l.inFlight());
    assertTrue(l.tryEnter(), "nobody waits: the fast path is open again");
    l.exit(now());
  }

  @Test
  void arrivalTakesAFreeSlotWhenNobodyWaits() {
    Line l = line(1);
    long o = arrive(l, Client.fresh());
    assertEquals(Outcome.ADMITTED, Outcome.kind(o));
    assertEquals(1, l.inFlight());
    assertEquals(0, l.waiting() + l.ready(), "an admitted arrival is not stored");
    l.exit(now());
  }

  @Test
  void arrivalsWaitInTicketOrder() {
    Line l = line(1);
    fill(l);
    List<Client> cs = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      cs.add(waiter(l, i));
    }
    assertEquals(6, l.waiting());
    for (int i = 0; i < cs.size(); i++) {
      long o = poll(l, cs.get(i));
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      assertEquals(i + 1, Outcome.position(o));
    }
    assertEquals(tokens(cs.toArray(new Client[0])), order(l));
    for (int i = 0; i < cs.size(); i++) {
      l.exit(now());
      Client next = cs.get(i);
      assertEquals(Outcome.READY, Outcome.kind(poll(l, next)), "client " + i + " is next");
      assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(next.hi(), next.lo(), now(), policy)));
    }
    l.exit(now());
  }

  @Test
  void aClaimWhileWaitingReportsThePositionAndAReadyClaimAdmitsOnce() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    long o = l.claim(b.hi(), b.lo(), now(), policy);
    assertEquals(Outcome.WAITING, Outcome.kind(o));
    assertEquals(2, Outcome.position(o));
    l.exit(now());
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(a.hi(), a.lo(), now(), policy)));
    assertEquals(Outcome.UNKNOWN, Outcome.kind(l.claim(a.hi(), a.lo(), now(), policy)));
    assertEquals(Outcome.UNKNOWN, Outcome.kind(poll(l, a)));
    assertEquals(1, positionOf(l, b));
    l.exit(now());
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(b.hi(), b.lo(), now(), policy)));
    l.exit(now());
  }

  @Test
  void capacityGrowsByHandingSlotsToWaitersAndShrinksWithoutBlocking() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    l.setCapacity(3, now());
    assertEquals(3, l.capacity());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, a)));
    assertEquals(Outcome.READY, Outcome.kind(poll(l, b)));
    assertEquals(1, Outcome.position(poll(l, c)));
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(a.hi(), a.lo(), now(), policy)));
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(b.hi(), b.lo(), now(), policy)));

    l.setCapacity(1, now());
    assertEquals(-2, l.freeSlots(), "three held, one slot");
    l.exit(now());
    l.exit(now());
    assertEquals(1, Outcome.position(poll(l, c)), "still over capacity: nobody moves");
    l.exit(now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, c)));
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(c.hi(), c.lo(), now(), policy)));
    l.exit(now());
  }

  @Test
  void maxQueueDepthTurnsArrivalsAway() {
    Line l = line(1);
    fill(l);
    Policy shallow = new Policy(TTL, 0, 1000, 100_000, OFFER, 2);
    Client a = Client.fresh();
    Client b = Client.fresh();
    assertEquals(
        Outcome.WAITING, Outcome.kind(l.arrive(a.hi(), a.lo(), "", false, now(), shallow)));
    assertEquals(
        Outcome.WAITING, Outcome.kind(l.arrive(b.hi(), b.lo(), "", false, now(), shallow)));
    Client c = Client.fresh();
    assertEquals(
        Outcome.REJECTED, Outcome.kind(l.arrive(c.hi(), c.lo(), "", false, now(), shallow)));
    assertNull(l.ticket(c.hi(), c.lo()));
    l.exit(now());
  }

  // ── Polls ──────────────────────────────────────────────────────────────

  @Test
  void pollsAreRateLimitedAndRefreshCookiesNowAndThen() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    long first = poll(l, a);
    assertFalse(Outcome.has(first, Outcome.RATE_LIMITED));
    assertFalse(Outcome.has(first, Outcome.REFRESH_COOKIES));
    clock.advanceMillis(500);
    long second = poll(l, a);
    assertTrue(Outcome.has(second, Outcome.RATE_LIMITED));
    assertEquals(1, Outcome.position(second), "a rate-limited poll still answers");
    clock.advanceMillis(600);
    assertFalse(Outcome.has(poll(l, a), Outcome.RATE_LIMITED));
    clock.advanceMillis(100_000);
    assertTrue(Outcome.has(poll(l, a), Outcome.REFRESH_COOKIES));
    TicketInfo info = l.ticket(a.hi(), a.lo());
    assertTrue(info.seen());
    assertEquals(now(), info.lastPoll().toEpochMilli());
    l.exit(now());
  }

  @Test
  void anUnknownTokenIsUnknownEverywhere() {
    Line l = line(1);
    Client x = Client.fresh();
    assertEquals(Outcome.UNKNOWN, Outcome.kind(poll(l, x)));
    assertEquals(Outcome.UNKNOWN, Outcome.kind(l.claim(x.hi(), x.lo(), now(), policy)));
    assertFalse(l.remove(x.hi(), x.lo(), now()));
    assertNull(l.ticket(x.hi(), x.lo()));
    assertThrows(TokenNotFoundException.class, () -> l.promote(x.hi(), x.lo(), 1));
    assertThrows(TokenNotFoundException.class, () -> l.quote(x.hi(), x.lo(), 1));
    assertThrows(TokenNotFoundException.class, () -> l.rank(x.hi(), x.lo(), 3));
  }

  @Test
  void ticketInfoCarriesWhatTheAdminReadsShow() {
    Line l = line(1);
    fill(l);
    waiter(l, 1);
    Client b = Client.fresh();
    long issued = now();
    l.arrive(b.hi(), b.lo(), "10.0.0.7", false, issued, policy);
    TicketInfo t = l.ticket(b.hi(), b.lo());
    assertEquals(b.token(), t.token());
    assertEquals(2, t.position());
    assertEquals("10.0.0.7", t.clientKey());
    assertEquals(issued, t.issuedAt().toEpochMilli());
    assertNull(t.lastPoll());
    assertFalse(t.seen());
    assertFalse(t.hasPass());
    assertEquals(0, t.rank());
    assertEquals(List.of(t), l.queue(10).subList(1, 2));
    assertEquals(1, l.queue(1).size());
    assertTrue(l.queue(0).isEmpty());
    l.exit(now());
  }

  // ── Removal ────────────────────────────────────────────────────────────

  @Test
  void removingAWaitingClientMovesEveryoneBehindUp() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    assertTrue(l.remove(b.hi(), b.lo(), now()));
    assertFalse(l.remove(b.hi(), b.lo(), now()), "retired exactly once");
    assertEquals(Outcome.UNKNOWN, Outcome.kind(poll(l, b)));
    assertEquals(2, positionOf(l, c));
    assertEquals(tokens(a, c), order(l));
    l.exit(now());
  }

  @Test
  void removingAReadyClientHandsItsSlotToTheNext() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    l.exit(now());
    assertEquals(0, positionOf(l, a));
    assertTrue(l.remove(a.hi(), a.lo(), now()));
    assertEquals(Outcome.READY, Outcome.kind(poll(l, b)));
    assertEquals(1, l.ready());
    assertEquals(0, l.waiting());
  }

  @Test
  void removeIfRetiresWhatThePredicateSelects() {
    Line l = line(1);
    fill(l);
    List<Client> cs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Client c = Client.fresh();
      l.arrive(c.hi(), c.lo(), i % 2 == 0 ? "even" : "odd", false, now(), policy);
      cs.add(c);
    }
    assertEquals(5, l.removeIf(t -> t.clientKey().equals("odd"), now()));
    assertEquals(5, l.waiting());
    for (int i = 0; i < 10; i += 2) {
      assertEquals(i / 2 + 1, positionOf(l, cs.get(i)));
    }
    assertEquals(0, l.removeIf(t -> t.clientKey().equals("odd"), now()));
    l.exit(now());
  }

  // ── Promotion, passes and ranks ────────────────────────────────────────

  @Test
  void promotionTiesWithTheOccupantAndGoesBehindItsGroup() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    Client d = waiter(l, 4);
    Client e = waiter(l, 5);

    Move m = l.promote(e.hi(), e.lo(), 2);
    assertEquals(new Move(5, 2, 5), m);
    Move n = l.promote(d.hi(), d.lo(), 2);
    assertEquals(new Move(4, 2, 5), n);
    assertEquals(tokens(a, b, e, d, c), order(l));
    assertEquals(1, positionOf(l, a));
    assertEquals(2, positionOf(l, b));
    assertEquals(2, positionOf(l, e));
    assertEquals(2, positionOf(l, d));
    assertEquals(3, positionOf(l, c));
    assertEquals(3, Outcome.position(poll(l, c)));

    // The group is served head first, then in the order its members joined it.
    List<Client> served = new ArrayList<>();
    for (Client x : List.of(a, b, e, d, c)) {
      l.exit(now());
      assertEquals(Outcome.READY, Outcome.kind(poll(l, x)));
      assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(x.hi(), x.lo(), now(), policy)));
      served.add(x);
    }
    assertEquals(5, served.size());
    l.exit(now());
  }

  @Test
  void aPromotionToAPlaceAtOrBehindMovesNothingAndAQuoteMovesNothingAtAll() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    assertEquals(new Move(2, 2, 3), l.promote(b.hi(), b.lo(), 2));
    assertEquals(new Move(2, 2, 3), l.promote(b.hi(), b.lo(), 9));
    assertEquals(new Move(3, 1, 3), l.quote(c.hi(), c.lo(), 1));
    assertEquals(new Move(3, 3, 3), l.quote(c.hi(), c.lo(), 5));
    assertEquals(tokens(a, b, c), order(l));
    l.exit(now());
    assertThrows(IllegalStateException.class, () -> l.promote(a.hi(), a.lo(), 1));
    assertThrows(IllegalStateException.class, () -> l.rank(a.hi(), a.lo(), 1));
  }

  @Test
  void anArrivalWithAPassJoinsTheFrontGroup() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client v = Client.fresh();
    long o = l.arrive(v.hi(), v.lo(), "", true, now(), policy);
    assertEquals(Outcome.WAITING, Outcome.kind(o));
    assertEquals(1, Outcome.position(o));
    assertTrue(Outcome.has(o, Outcome.PROMOTED));
    assertTrue(l.ticket(v.hi(), v.lo()).hasPass());
    assertEquals(tokens(a, v, b), order(l));
    assertEquals(2, positionOf(l, b));
    l.exit(now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, a)), "the head of the group goes first");
  }

  @Test
  void aPassOnAnEmptyLineIsAnOrdinaryArrival() {
    Line l = line(1);
    fill(l);
    Client v = Client.fresh();
    long o = l.arrive(v.hi(), v.lo(), "", true, now(), policy);
    assertEquals(1, Outcome.position(o));
    assertFalse(Outcome.has(o, Outcome.PROMOTED));
    l.exit(now());
  }

  @Test
  void ranksMoveAheadOfLowerRanksAndBehindEqualOnes() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    Client d = waiter(l, 4);
    assertTrue(l.rank(c.hi(), c.lo(), 5));
    assertTrue(l.rank(d.hi(), d.lo(), 5));
    assertTrue(l.rank(b.hi(), b.lo(), 3));
    assertEquals(tokens(c, d, b, a), order(l));
    assertEquals(4, positionOf(l, a));
    assertFalse(l.rank(c.hi(), c.lo(), 1), "lowering a rank moves nothing");
    assertEquals(1, l.ticket(c.hi(), c.lo()).rank(), "but is recorded");
    assertFalse(l.rank(d.hi(), d.lo(), 5), "an equal rank moves nothing");
    assertEquals(tokens(c, d, b, a), order(l));
    l.exit(now());
  }

  @Test
  void passesExpireAndAreSwept() {
    Line l = line(1);
    Client p = Client.fresh();
    assertEquals(0, l.passExpiry(p.hi(), p.lo()));
    l.grantPass(p.hi(), p.lo(), now() + 60_000);
    assertEquals(now() + 60_000, l.passExpiry(p.hi(), p.lo()));
    assertEquals(0, l.sweepPasses(now()));
    clock.advanceMillis(60_000);
    assertEquals(1, l.sweepPasses(now()));
    assertEquals(0, l.passExpiry(p.hi(), p.lo()));
  }

  // ── Eviction ───────────────────────────────────────────────────────────

  @Test
  void ticketsNotHeardFromForTheTtlAreEvicted() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    clock.advanceMillis(TTL - 1000);
    poll(l, b);
    clock.advanceMillis(1000);
    assertArrayEquals(new int[] {1, 0}, l.evict(now(), policy));
    assertNull(l.ticket(a.hi(), a.lo()));
    assertEquals(1, positionOf(l, b));
    assertArrayEquals(new int[] {0, 0}, l.evict(now(), policy));
    l.exit(now());
  }

  @Test
  void aPollOfAnExpiredTicketRetiresIt() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    clock.advanceMillis(TTL);
    long o = poll(l, a);
    assertEquals(Outcome.UNKNOWN, Outcome.kind(o));
    assertTrue(Outcome.has(o, Outcome.EVICTED));
    assertEquals(0, l.waiting());
    l.exit(now());
  }

  @Test
  void aReadyClientThatDoesNotComeBackTimesOutAndItsSlotMovesOn() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    l.exit(now());
    clock.advanceMillis(10_000);
    assertEquals(Outcome.READY, Outcome.kind(poll(l, a)), "told now: the deadline starts");
    clock.advanceMillis(OFFER - 1);
    poll(l, b);
    assertArrayEquals(new int[] {0, 0}, l.evict(now(), policy));
    clock.advanceMillis(1);
    assertArrayEquals(new int[] {0, 1}, l.evict(now(), policy));
    assertEquals(Outcome.READY, Outcome.kind(poll(l, b)));
    clock.advanceMillis(OFFER);
    long o = l.claim(b.hi(), b.lo(), now(), policy);
    assertEquals(Outcome.UNKNOWN, Outcome.kind(o));
    assertTrue(Outcome.has(o, Outcome.TIMED_OUT));
    assertEquals(0, l.ready());
    assertTrue(l.tryEnter());
    l.exit(now());
  }

  @Test
  void theFirstPollGraceEvictsClientsThatNeverCameBack() {
    Line l = line(1);
    fill(l);
    Policy grace = new Policy(TTL, 10_000, 1000, 100_000, OFFER, 0);
    Client a = Client.fresh();
    Client b = Client.fresh();
    l.arrive(a.hi(), a.lo(), "", false, now(), grace);
    l.arrive(b.hi(), b.lo(), "", false, now(), grace);
    clock.advanceMillis(5000);
    l.poll(b.hi(), b.lo(), now(), grace);
    clock.advanceMillis(5000);
    assertArrayEquals(new int[] {1, 0}, l.evict(now(), grace));
    assertNull(l.ticket(a.hi(), a.lo()));
    assertEquals(1, positionOf(l, b));
    l.exit(now());
  }

  @Test
  void eachTicketEndsExactlyOnceUnderConcurrentClaimsRemovalsAndEviction() throws Exception {
    int clients = 120;
    Line l = line(4);
    List<Client> cs = new ArrayList<>();
    fill(l);
    for (int i = 0; i < clients; i++) {
      Client c = Client.fresh();
      arrive(l, c);
      cs.add(c);
    }
    clock.advanceMillis(1000);
    for (int i = 0; i < clients; i += 3) {
      poll(l, cs.get(i)); // every third stays alive; the rest are due for eviction below
    }
    clock.advanceMillis(TTL - 1000);
    for (int i = 0; i < 4; i++) {
      l.exit(now());
    }
    ConcurrentHashMap<String, String> endings = new ConcurrentHashMap<>();
    AtomicInteger evicted = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> work = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      work.add(
          pool.submit(
              () -> {
                start.await();
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int step = 0;
                    step < 20_000 && endings.size() + evicted.get() < clients;
                    step++) {
                  Client c = cs.get(random.nextInt(clients));
                  int dice = random.nextInt(20);
                  if (dice == 0) {
                    if (l.remove(c.hi(), c.lo(), now())) {
                      assertNull(endings.put(c.token(), "removed"), "ended twice");
                    }
                  } else if (dice == 1) {
                    int[] r = l.evict(now(), policy);
                    evicted.addAndGet(r[0] + r[1]);
                  } else {
                    long o = l.claim(c.hi(), c.lo(), now(), policy);
                    if (Outcome.kind(o) == Outcome.ADMITTED) {
                      assertNull(endings.put(c.token(), "admitted"), "ended twice");
                      l.exit(now());
                    } else if (Outcome.has(o, Outcome.EVICTED | Outcome.TIMED_OUT)) {
                      assertNull(endings.put(c.token(), "expired"), "ended twice");
                    }
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : work) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    int[] r = l.evict(now(), policy);
    evicted.addAndGet(r[0] + r[1]);
    assertEquals(0, l.waiting() + l.ready(), "everyone was served, removed or evicted");
    assertEquals(clients, endings.size() + evicted.get(), "every ticket ends exactly once");
    for (int i = 0; i < clients; i++) {
      String ending = endings.get(cs.get(i).token());
      if (i % 3 == 0) {
        assertTrue("admitted".equals(ending) || "removed".equals(ending), "live: " + ending);
      } else {
        assertFalse("admitted".equals(ending), "an expired ticket was admitted");
      }
    }
    assertEquals(0, l.inFlight());
  }

  // ── The allowance: holds and metered admissions ────────────────────────

  @Test
  void aZeroAllowanceHoldsTheLineWhileReadyClientsKeepTheirSlots() {
    Line l = line(2);
    assertEquals(Line.UNLIMITED, l.allowance());
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    l.exit(now()); // a is handed the slot before the hold
    l.setAllowance(0, now());
    assertEquals(0, l.allowance());
    l.exit(now());
    assertEquals(1, l.freeSlots(), "a freed slot stays free while the line is held");
    assertEquals(1, Outcome.position(poll(l, b)), "everyone keeps their place");
    assertFalse(l.tryEnter(), "nobody takes the free slot by the fast path");
    assertEquals(Outcome.READY, Outcome.kind(poll(l, a)));
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(a.hi(), a.lo(), now(), policy)));
    assertEquals(Outcome.WAITING, Outcome.kind(arrive(l, Client.fresh())), "arrivals queue");

    l.setAllowance(Line.UNLIMITED, now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, b)), "lifting the hold hands the slot on");
    assertEquals(1, Outcome.position(poll(l, c)), "in order");
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(b.hi(), b.lo(), now(), policy)));
    l.exit(now());
    l.exit(now());
  }

  @Test
  void anArrivalOnAnEmptyHeldLineWaitsAlthoughASlotIsFree() {
    Line l = line(1);
    l.setAllowance(0, now());
    Client a = waiter(l, 1);
    assertEquals(1, l.freeSlots());
    l.setAllowance(Line.UNLIMITED, now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, a)));
    assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(a.hi(), a.lo(), now(), policy)));
    l.exit(now());
  }

  @Test
  void aLimitedAllowanceMetersHandOversAndTheFastPath() {
    Line l = line(5);
    l.setAllowance(2, now());
    assertTrue(l.tryEnter());
    assertTrue(l.tryEnter());
    assertFalse(l.tryEnter(), "three slots are free but the allowance is used up");
    assertEquals(0, l.allowance());
    l.addAllowance(10, 3, now());
    assertEquals(3, l.allowance(), "topped up to the maximum only");
    assertTrue(l.tryEnter());
    assertTrue(l.tryEnter());
    assertTrue(l.tryEnter());
    l.addAllowance(1, 1, now());
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    l.exit(now());
    l.exit(now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, a)), "one hand-over, from the allowance");
    assertEquals(1, Outcome.position(poll(l, b)), "then the line holds");
    assertEquals(0, l.allowance());
    assertEquals(1, l.freeSlots());
    l.addAllowance(1, 1, now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, b)));
    assertEquals(0, l.allowance());
    l.setAllowance(Line.UNLIMITED, now());
    l.addAllowance(1, 1, now());
    assertEquals(Line.UNLIMITED, l.allowance(), "an unlimited allowance stays unlimited");
    for (Client x : List.of(a, b)) {
      assertEquals(Outcome.ADMITTED, Outcome.kind(l.claim(x.hi(), x.lo(), now(), policy)));
    }
    for (int i = 0; i < 5; i++) {
      l.exit(now());
    }
    assertEquals(0, l.inFlight());
  }

  @Test
  void aHeldReadyClientWhoTimesOutGivesItsSlotBackWithoutHandingItOn() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    l.exit(now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, a)));
    l.setAllowance(0, now());
    clock.advanceMillis(OFFER);
    poll(l, b);
    assertArrayEquals(new int[] {0, 1}, l.evict(now(), policy));
    assertEquals(1, l.freeSlots());
    assertEquals(1, Outcome.position(poll(l, b)));
    l.setAllowance(Line.UNLIMITED, now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, b)));
  }

  // ── The pre-sale draw ──────────────────────────────────────────────────

  @Test
  void thePresaleDrawReordersTheUnmovedGroupAndNobodyElse() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    Client d = waiter(l, 4);
    Client e = waiter(l, 5);
    Client f = waiter(l, 6);
    Client v = waiter(l, 7);
    l.promote(e.hi(), e.lo(), 2); // e moved: it ties with b's place and stays out of the draw
    assertTrue(l.rank(v.hi(), v.lo(), 1)); // v moved to a band of its own, ahead of everyone
    List<Integer> asked = new ArrayList<>();
    int n =
        l.drawPresale(
            size -> {
              asked.add(size);
              int[] reversed = new int[size];
              for (int k = 0; k < size; k++) {
                reversed[k] = size - 1 - k;
              }
              return reversed;
            },
            now());
    assertEquals(5, n, "a, b, c, d and f never moved");
    assertEquals(5, asked.get(asked.size() - 1));
    // The group's places (those of a, b, c, d, f) go to f, d, c, b, a; e keeps b's old place.
    assertEquals(tokens(v, f, d, e, c, b, a), order(l));
    assertEquals(3, positionOf(l, e), "tied with d, who took b's place");
    Client g = waiter(l, 7);
    assertEquals(tokens(v, f, d, e, c, b, a, g), order(l), "later arrivals queue behind");
    l.exit(now());
    assertEquals(Outcome.READY, Outcome.kind(poll(l, v)));
  }

  @Test
  void aDrawThatIsNotAPermutationMovesNothing() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    assertThrows(
        IllegalArgumentException.class, () -> l.drawPresale(size -> new int[] {0, 0}, now()));
    assertThrows(IllegalArgumentException.class, () -> l.drawPresale(size -> new int[] {1}, now()));
    assertEquals(tokens(a, b), order(l));
    assertEquals(0, line(1).drawPresale(size -> new int[size], now()), "an empty line: no draw");
    l.exit(now());
  }

  // ── Export and restore ─────────────────────────────────────────────────

  @Test
  void anExportRestoresIntoAnotherLineWithOrderTiesRanksAndPasses() {
    Line l = line(1);
    fill(l);
    Client a = waiter(l, 1);
    Client b = waiter(l, 2);
    Client c = waiter(l, 3);
    Client d = waiter(l, 4);
    l.promote(d.hi(), d.lo(), 2);
    l.rank(c.hi(), c.lo(), 2);
    poll(l, b);
    Client p = Client.fresh();
    l.grantPass(p.hi(), p.lo(), now() + 120_000);
    l.exit(now()); // c, ranked first, is now ready
    List<LineEntry> entries = new ArrayList<>();
    List<long[]> passes = new ArrayList<>();
    l.export(entries::add, passes::add);
    assertEquals(4, entries.size());
    assertTrue(entries.get(0).ready());
    assertEquals(1, passes.size());

    Line copy = line(2);
    assertEquals(4, copy.restore(entries.iterator(), passes.iterator(), now()));
    assertTrue(copy.used());
    assertEquals(tokens(c, a, b, d), order(copy));
    assertEquals(2, copy.ready(), "the first two in line are ready at once");
    assertEquals(1, positionOf(copy, b));
    assertEquals(1, positionOf(copy, d), "the tie survives");
    assertEquals(now() + 120_000, copy.passExpiry(p.hi(), p.lo()));
    assertTrue(Outcome.has(poll(copy, b), Outcome.REFRESH_COOKIES), "cookies re-sent once");
    assertThrows(
        IllegalStateException.class,
        () -> copy.restore(entries.iterator(), passes.iterator(), now()));
  }

  @Test
  void aFailedRestoreLeavesTheLineAsItWas() {
    Line l = line(1);
    Client a = Client.fresh();
    Client b = Client.fresh();
    LineEntry first = entry(a, 0, 5, 5);
    LineEntry second = entry(b, 0, 3, 3);
    assertThrows(
        IllegalArgumentException.class,
        () -> l.restore(List.of(first, second).iterator(), Collections.emptyIterator(), now()));
    assertThrows(
        IllegalArgumentException.class,
        () -> l.restore(List.of(first, entry(a, 0, 6, 6)).iterator(), noPasses(), now()));
    Iterator<LineEntry> failing =
        new Iterator<>() {
          int n;

          @Override
          public boolean hasNext() {
            return true;
          }

          @Override
          public LineEntry next() {
            if (n++ == 0) {
              return first;
            }
            throw new IllegalArgumentException("truncated");
          }
        };
    assertThrows(IllegalArgumentException.class, () -> l.restore(failing, noPasses(), now()));
    assertFalse(l.used());
    assertEquals(0, l.waiting());
    assertEquals(1, l.restore(List.of(first).iterator(), noPasses(), now()));
    assertEquals(1, l.ready());
  }

  private LineEntry entry(Client c, int band, long place, long order) {
    return new LineEntry(
        c.hi(),
        c.lo(),
        band,
        place,
        order,
        0,
        now(),
        now(),
        Long.MIN_VALUE,
        false,
        false,
        false,
        "");
  }

  private static Iterator<long[]> noPasses() {
    return Collections.emptyIterator();
  }
}
