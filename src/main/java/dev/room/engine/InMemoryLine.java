package dev.room.engine;

import dev.room.TicketInfo;
import dev.room.TokenNotFoundException;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.Move;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The default line: one process, one lock, no allocation on a status poll.
 *
 * <p>Implementation notes. State: a {@link SlotGate} (free slots), a {@link LineIndex} of waiting
 * tickets in line order, a list of ready tickets (each holding one reserved slot) and a {@link
 * TokenTable} from token to ticket. A ticket lives in the token table while it is WAITING or READY;
 * leaving it (admission or retirement) is the single atomic step that ends it, so admission racing
 * eviction accounts for the ticket exactly once.
 *
 * <p>Presence. A waiting ticket is present or {@linkplain Ticket#away away}. Away tickets are the
 * restored ones whose client has not polled since the import and the ones whose offer lapsed; they
 * keep their place (and count in everyone's position) but a freed slot goes to the first
 * <em>present</em> waiter, found through the index's present counts. A poll or claim makes a ticket
 * present again; standing ahead, it is offered the next slot that frees (at once when one is free).
 * A lapsed offer is not an ending: the ticket goes back to waiting at its own place.
 *
 * <p>Invariant: while a present client waits and the allowance is not used up there is no free
 * slot, apart from the instant between a release and its rebalance. Every path that frees a slot
 * releases it and then, when someone waits, rebalances under the lock (hands slots to the first
 * present waiters); every path that queues a ticket publishes the new waiting count before trying
 * the gate. One of the two always sees the other, so a slot never sits free while the line waits.
 * The fast path takes a slot without the lock only when nobody waits, so it never passes a waiting
 * client; while only away clients wait a newcomer queues and is handed a free slot at once.
 *
 * <p>Retiring a waiting ticket removes it from the index, so everyone behind moves up at once and
 * the window never has to skip it later (the role of the Go version's ghost ledger). Retiring a
 * ready ticket returns its reserved slot, which moves the window at once.
 *
 * <p>The allowance is written under the lock and read without it by the fast path. An unlimited
 * allowance costs the fast path one volatile read; a limited one sends it through the lock so the
 * allowance and the slot are taken together. A fast path that saw an unlimited allowance checks it
 * again after taking its slot and, if a hold or a rate was set meanwhile, gives the slot back and
 * retries through the lock: so once {@link #setAllowance} returns, no admission slips past it.
 *
 * <p>Lock order: this line's lock, then the gate's monitor (resize only). Listeners and user
 * predicates never run under the lock.
 */
public final class InMemoryLine implements Line {
  private static final int SCAN_CHUNK = 4096;
  private static final int SNAPSHOT_CHUNK = 256;

  /** Passes as exported: by expiry, then token, the order the Redis line's pass set reads in. */
  private static final Comparator<long[]> PASS_ORDER =
      Comparator.<long[]>comparingLong(p -> p[2])
          .thenComparing(p -> p[0], Long::compareUnsigned)
          .thenComparing(p -> p[1], Long::compareUnsigned);

  /** The highest band a rank moves a ticket into: the one above is {@link Ticket#CALLED}. */
  private static final int MAX_RANKED_BAND = Ticket.CALLED - 1;

  /** A plain monitor: contended acquisitions allocate nothing on the heap, unlike a queued lock. */
  private final Object lock = new Object();

  private final SlotGate gate;
  private final AtomicInteger inFlight = new AtomicInteger();
  private LineIndex index = new LineIndex();
  private TokenTable tokens = new TokenTable();
  private final ConcurrentHashMap<PassKey, Long> passes = new ConcurrentHashMap<>();

  private Ticket readyHead;
  private Ticket readyTail;
  private long counter;
  private long lastIssuedAt = Long.MIN_VALUE;
  private volatile long waitingCount;
  private volatile long readyCount;
  private volatile boolean used;
  private volatile long allowance = UNLIMITED;
  private volatile long allowanceChangedAt;

  public InMemoryLine(int capacity) {
    this.gate = new SlotGate(capacity);
  }

  @Override
  public int capacity() {
    return gate.capacity();
  }

  @Override
  public void setCapacity(int capacity, long now) {
    synchronized (lock) {
      if (gate.resize(capacity) > 0) {
        rebalance(now);
      }
    }
  }

  @Override
  public int inFlight() {
    return inFlight.get();
  }

  @Override
  public int freeSlots() {
    return gate.available();
  }

  @Override
  public long waiting() {
    return waitingCount;
  }

  @Override
  public long ready() {
    return readyCount;
  }

  @Override
  public boolean used() {
    return used;
  }

  @Override
  public long allowance() {
    return allowance;
  }

  @Override
  public void setAllowance(long allowance, long now) {
    if (allowance < 0) {
      throw new IllegalArgumentException("allowance must not be negative, was " + allowance);
    }
    synchronized (lock) {
      this.allowance = allowance;
      allowanceChangedAt = now;
      rebalance(now);
    }
  }

  @Override
  public long replaceAllowance(long allowance, long now) {
    synchronized (lock) {
      long was = this.allowance;
      setAllowance(allowance, now);
      return was;
    }
  }

  @Override
  public void addAllowance(long n, long max, long now) {
    synchronized (lock) {
      long a = allowance;
      if (a != UNLIMITED && a < max && n > 0) {
        allowance = a + Math.min(n, max - a);
        allowanceChangedAt = now;
      }
      rebalance(now);
    }
  }

  @Override
  public boolean tryEnter() {
    if (waitingCount != 0) {
      return false;
    }
    long a = allowance;
    if (a != UNLIMITED) {
      return a > 0 && tryEnterMetered();
    }
    if (!gate.tryAcquire()) {
      return false;
    }
    if (allowance != UNLIMITED) { // a hold or a rate arrived meanwhile: go through the lock
      giveBack();
      return tryEnterMetered();
    }
    inFlight.incrementAndGet();
    if (!used) {
      used = true;
    }
    return true;
  }

  /** The fast path under a limited allowance: the slot and the allowance are taken together. */
  private boolean tryEnterMetered() {
    synchronized (lock) {
      if (waitingCount != 0 || allowance == 0 || !gate.tryAcquire()) {
        return false;
      }
      if (allowance != UNLIMITED) {
        allowance--;
      }
      inFlight.incrementAndGet();
      used = true;
      return true;
    }
  }

  /**
   * Returns a slot the fast path took but may not use, and hands it on if someone waits. The
   * allowance changed an instant ago, so the time of that change stands in for now.
   */
  private void giveBack() {
    gate.release();
    if (waitingCount != 0) {
      synchronized (lock) {
        rebalance(allowanceChangedAt);
      }
    }
  }

  @Override
  public void exit(long now) {
    inFlight.decrementAndGet();
    gate.release();
    if (waitingCount != 0) {
      synchronized (lock) {
        rebalance(now);
      }
    }
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    synchronized (lock) {
      used = true;
      if (p.maxQueueDepth() > 0 && waitingCount >= p.maxQueueDepth()) {
        return Outcome.of(Outcome.REJECTED, 0, 0);
      }
      Ticket t = new Ticket(hi, lo, ++counter);
      if (!tokens.add(t)) {
        return Outcome.of(Outcome.UNKNOWN, 0, 0); // a 2^-128 collision: the caller retries
      }
      // The caller read its clock before the lock: an arrival that read it later may have been
      // placed first. issuedAt is this step's time, so it never runs against arrival order.
      t.issuedAt = Math.max(now, lastIssuedAt);
      lastIssuedAt = t.issuedAt;
      t.lastActivity = now;
      t.cookiesSentAt = now;
      t.clientKey = clientKey;
      t.hasPass = toFront;
      Ticket front = toFront ? index.groupAt(1) : null;
      t.state = Ticket.WAITING;
      if (front != null) {
        joinTie(t, front);
      } else {
        t.place = t.number;
        t.order = t.number;
        index.insert(t);
      }
      waitingCount++;
      rebalance(now);
      if (t.state == Ticket.READY) {
        admitReady(t);
        return Outcome.of(Outcome.ADMITTED, 0, 0);
      }
      return Outcome.of(Outcome.WAITING, index.position(t), front != null ? Outcome.PROMOTED : 0);
    }
  }

  @Override
  public long poll(long hi, long lo, long now, Policy p) {
    synchronized (lock) {
      Ticket t = tokens.get(hi, lo);
      if (t == null) {
        return Outcome.of(Outcome.UNKNOWN, 0, 0);
      }
      if (expired(t, now, p)) {
        return retireExpired(t, now);
      }
      long flags = lapseIfDue(t, now, p);
      if (t.polled && now - t.lastPoll < p.pollInterval()) {
        flags |= Outcome.RATE_LIMITED;
      } else {
        t.lastPoll = now;
        t.polled = true;
        t.reloaded = false;
      }
      t.lastActivity = now;
      t.seen = true;
      if (t.resend || now - t.cookiesSentAt >= p.cookieRefresh()) {
        t.resend = false;
        t.cookiesSentAt = now;
        flags |= Outcome.REFRESH_COOKIES;
      }
      if (t.away) {
        present(t, now);
      }
      if (t.state == Ticket.READY) {
        if (!t.told) {
          t.told = true;
          t.readyAt = now; // the claim deadline runs from when the client learns of it
          flags |= Outcome.FIRST_READY;
        }
        return Outcome.of(Outcome.READY, 0, flags);
      }
      return Outcome.of(Outcome.WAITING, index.position(t), flags);
    }
  }

  @Override
  public long claim(long hi, long lo, long now, Policy p) {
    synchronized (lock) {
      Ticket t = tokens.get(hi, lo);
      if (t == null) {
        return Outcome.of(Outcome.UNKNOWN, 0, 0);
      }
      if (expired(t, now, p)) {
        return retireExpired(t, now);
      }
      long flags = lapseIfDue(t, now, p);
      if (t.away) {
        present(t, now);
      }
      if (t.state == Ticket.READY) {
        admitReady(t);
        return Outcome.of(Outcome.ADMITTED, 0, flags);
      }
      t.lastActivity = now;
      t.seen = true;
      if (t.reloaded && now - t.lastPoll < p.pollInterval()) {
        // a reload is a poll in disguise: one per poll interval, no cookies re-sent; the page's
        // own poll just before is the room's doing, so it does not count against the visitor
        return Outcome.of(Outcome.WAITING, index.position(t), flags | Outcome.RATE_LIMITED);
      }
      t.lastPoll = now;
      t.polled = true;
      t.reloaded = true;
      t.cookiesSentAt = now;
      return Outcome.of(Outcome.WAITING, index.position(t), flags);
    }
  }

  @Override
  public boolean remove(long hi, long lo, long now) {
    synchronized (lock) {
      Ticket t = tokens.get(hi, lo);
      if (t == null) {
        return false;
      }
      retire(t, now);
      return true;
    }
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    List<Ticket> candidates = new ArrayList<>();
    List<TicketInfo> infos = new ArrayList<>();
    snapshot(candidates, infos);
    List<Ticket> chosen = new ArrayList<>();
    for (int i = 0; i < infos.size(); i++) {
      if (match.test(infos.get(i))) {
        chosen.add(candidates.get(i));
      }
    }
    int removed = 0;
    for (int from = 0; from < chosen.size(); from += SNAPSHOT_CHUNK) {
      synchronized (lock) {
        for (Ticket t : chosen.subList(from, Math.min(chosen.size(), from + SNAPSHOT_CHUNK))) {
          if (t.state != Ticket.GONE && tokens.get(t.hi, t.lo) == t) {
            retire(t, now);
            removed++;
          }
        }
      }
    }
    return removed;
  }

  @Override
  public Move promote(long hi, long lo, long target) {
    synchronized (lock) {
      Ticket t = waitingTicket(hi, lo);
      long from = index.position(t);
      if (target >= from) {
        return new Move(from, from, waitingCount);
      }
      Ticket occupant = index.groupAt(target);
      index.remove(t);
      joinTie(t, occupant);
      return new Move(from, index.position(t), waitingCount);
    }
  }

  /**
   * Ties {@code t} (not in the index) into the group headed by {@code head}: behind the members
   * promoted into it before, ahead of the member holding the place, which takes a fresher order.
   * Caller holds the lock.
   */
  private void joinTie(Ticket t, Ticket head) {
    t.band = head.band;
    t.place = head.place;
    t.promoted = true;
    t.order = ++counter;
    Ticket last = index.before(key(head.band, head.place, Long.MAX_VALUE));
    if (last != null && last.sameGroup(t) && !last.promoted) {
      index.remove(last);
      index.insert(t);
      last.order = ++counter;
      index.insert(last);
    } else {
      index.insert(t);
    }
  }

  @Override
  public Move quote(long hi, long lo, long target) {
    synchronized (lock) {
      Ticket t = waitingTicket(hi, lo);
      long from = index.position(t);
      return new Move(from, Math.min(from, target), waitingCount);
    }
  }

  /**
   * Records the rank, then moves the ticket forward past every ticket whose recorded rank is lower,
   * up to the nearest one ahead holding an equal or higher rank (restored ready tickets count as
   * the highest). A tie is never split by someone passing it: a ticket stops behind the whole group
   * of the one it may not pass. Only tickets in bands at least {@code rank} can hold such a rank (a
   * band is never below its tickets' ranks), so the walk back covers the ranked part of the line
   * only.
   */
  @Override
  public boolean rank(long hi, long lo, int rank) {
    synchronized (lock) {
      Ticket t = waitingTicket(hi, lo);
      t.rank = rank;
      int floor = Math.min(rank, MAX_RANKED_BAND);
      Ticket bound =
          t.band >= floor
              ? index.before(t)
              : index.before(key(floor - 1, Long.MIN_VALUE, Long.MIN_VALUE));
      while (bound != null && bound.rank < rank && bound.band != Ticket.CALLED) {
        bound = index.before(bound);
      }
      Ticket pred = index.before(t);
      boolean passes = pred != null && (bound == null || !pred.sameGroup(bound));
      if (!passes && floor <= t.band) {
        return false;
      }
      // Not passing anyone but rising above its band: the ticket keeps its position and leaves
      // its tie to stand ahead of its (lower-ranked) tie-mates, so its band covers its rank again.
      boolean leavesTie = !passes && t.sameGroup(index.after(t));
      index.remove(t);
      placeBehind(t, bound, floor);
      return passes || leavesTie;
    }
  }

  /**
   * Inserts {@code t} as a group of its own right behind {@code bound}'s group (at the front when
   * null), in a band of at least {@code floor}. Keys are whole numbers, so when the next group is
   * in the same band the rest of that band is re-keyed behind {@code t}, in its order. Caller holds
   * the lock.
   */
  private void placeBehind(Ticket t, Ticket bound, int floor) {
    Ticket next =
        bound == null ? index.first() : index.after(key(bound.band, bound.place, Long.MAX_VALUE));
    int upper = bound == null ? MAX_RANKED_BAND : Math.min(bound.band, MAX_RANKED_BAND);
    int band;
    if (next == null) {
      band = floor;
    } else if (next.band < upper) {
      band = Math.min(upper, Math.max(floor, next.band + 1));
    } else {
      band = upper;
    }
    List<Ticket> rest = new ArrayList<>();
    for (Ticket n = next; n != null && n.band == band; n = index.after(n)) {
      rest.add(n);
    }
    rest.forEach(index::remove);
    t.band = band;
    t.place = ++counter;
    t.order = t.place;
    t.promoted = false;
    index.insert(t);
    long oldPlace = Long.MIN_VALUE;
    for (Ticket n : rest) {
      if (n.place != oldPlace) {
        oldPlace = n.place;
        ++counter;
      }
      n.place = counter;
      index.insert(n);
    }
  }

  @Override
  public int drawPresale(IntFunction<int[]> order, long now) {
    synchronized (lock) {
      List<Ticket> group = new ArrayList<>();
      index.forEach(
          Integer.MAX_VALUE,
          t -> {
            if (t.band == 0 && !t.promoted) {
              group.add(t); // in line order: ascending place, here equal to arrival order
            }
          });
      int n = group.size();
      int[] drawn = order.apply(n);
      checkPermutation(drawn, n);
      long[] sorted = new long[n];
      for (int i = 0; i < n; i++) {
        sorted[i] = group.get(i).place;
      }
      group.forEach(index::remove);
      // Clients tied to a group member's place (promotions, passes) stay tied to that place, in
      // their order, and whoever draws it holds it behind them: it takes a fresher order.
      for (int k = 0; k < n; k++) {
        Ticket t = group.get(drawn[k]);
        t.place = sorted[k];
        Ticket last = index.before(key(0, t.place, Long.MAX_VALUE));
        if (last != null && last.sameGroup(t)) {
          t.order = ++counter;
        }
        index.insert(t);
      }
      return n;
    }
  }

  private static void checkPermutation(int[] p, int n) {
    if (p == null || p.length != n) {
      throw new IllegalArgumentException("the draw must order exactly " + n + " arrivals");
    }
    boolean[] seen = new boolean[n];
    for (int i : p) {
      if (i < 0 || i >= n || seen[i]) {
        throw new IllegalArgumentException("the draw is not a permutation");
      }
      seen[i] = true;
    }
  }

  @Override
  public List<TicketInfo> queue(int limit) {
    List<Row> rows = new ArrayList<>(Math.min(Math.max(limit, 0), 1024));
    if (limit <= 0) {
      return List.of();
    }
    synchronized (lock) {
      for (Ticket r = readyHead; r != null && rows.size() < limit; r = r.right) {
        rows.add(new Row(r, 0));
      }
      long[] position = {0};
      index.forEach(
          limit - rows.size(),
          t -> {
            if (t.head) {
              position[0]++;
            }
            rows.add(new Row(t, position[0]));
          });
    }
    // Formatting tokens and building records happens outside the lock: polls wait only for the
    // copy.
    List<TicketInfo> out = new ArrayList<>(rows.size());
    for (Row r : rows) {
      out.add(r.info());
    }
    return out;
  }

  @Override
  public TicketInfo ticket(long hi, long lo) {
    synchronized (lock) {
      Ticket t = tokens.get(hi, lo);
      if (t == null) {
        return null;
      }
      return info(t, t.state == Ticket.READY ? 0 : index.position(t));
    }
  }

  @Override
  public int[] evict(long now, Policy p) {
    int evicted = 0;
    int timedOut = 0;
    List<Ticket> expired = new ArrayList<>();
    Ticket[] all;
    synchronized (lock) {
      all = tokens.snapshot(); // every ticket at the pass's start, whatever moves the table later
    }
    for (int from = 0; from < all.length; from += SCAN_CHUNK) {
      synchronized (lock) {
        expired.clear();
        for (int i = from; i < Math.min(all.length, from + SCAN_CHUNK); i++) {
          Ticket t = all[i];
          if (t.state != Ticket.GONE && (expired(t, now, p) || lapsed(t, now, p))) {
            expired.add(t);
          }
        }
        for (Ticket t : expired) {
          if (expired(t, now, p)) {
            retireQuietly(t);
            evicted++;
          } else if (lapse(t, true)) {
            timedOut++;
          }
        }
        // Only now are freed slots handed on, and only to live tickets: a slot never goes to a
        // ticket this pass is about to reclaim.
        evicted += rebalanceLive(now, p);
      }
    }
    return new int[] {evicted, timedOut};
  }

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    synchronized (lock) { // with the used flag, so a restore either refuses or runs before it
      used = true;
      passes.put(new PassKey(hi, lo), expiresAt);
    }
  }

  @Override
  public long passExpiry(long hi, long lo) {
    Long e = passes.get(new PassKey(hi, lo));
    return e == null ? 0 : e;
  }

  @Override
  public int sweepPasses(long now) {
    int before = passes.size();
    passes.values().removeIf(expiresAt -> expiresAt <= now);
    return Math.max(0, before - passes.size());
  }

  @Override
  public void export(Consumer<LineEntry> sink, Consumer<long[]> passSink) {
    List<LineEntry> chunk = new ArrayList<>(SNAPSHOT_CHUNK);
    synchronized (lock) {
      for (Ticket r = readyHead; r != null; r = r.right) {
        chunk.add(entry(r, true));
      }
    }
    chunk.forEach(sink);
    Ticket after = null;
    while (true) {
      chunk.clear();
      synchronized (lock) {
        Ticket start = after == null ? index.first() : index.after(after);
        if (start == null) {
          break;
        }
        Ticket[] last = {null};
        index.forEachFrom(
            start,
            SNAPSHOT_CHUNK,
            t -> {
              chunk.add(entry(t, false));
              last[0] = t;
            });
        after = keyOf(last[0]);
      }
      chunk.forEach(sink);
    }
    // Sorted: a map's order is not one a restore could reproduce, so a round trip would reorder.
    List<long[]> sorted = new ArrayList<>(passes.size());
    passes.forEach((k, expiresAt) -> sorted.add(new long[] {k.hi(), k.lo(), expiresAt}));
    sorted.sort(PASS_ORDER);
    sorted.forEach(passSink);
  }

  @Override
  public int restore(Iterator<LineEntry> entries, Iterator<long[]> passList, long now) {
    if (used) {
      throw new IllegalStateException("the line has already been used");
    }
    TokenTable newTokens = new TokenTable();
    LineIndex newIndex = new LineIndex();
    Ticket previous = null;
    long maxKey = 0;
    long called = 0;
    while (entries.hasNext()) {
      LineEntry e = entries.next();
      Ticket t = new Ticket(e.hi(), e.lo(), e.number());
      if (e.ready()) { // called before the restart: first in line, in the file's order
        t.band = Ticket.CALLED;
        t.place = ++called;
        t.order = t.place;
        t.restoredReady = e;
      } else {
        t.band = e.band();
        t.place = e.place();
        t.order = e.order();
      }
      // Every later place and tie order comes from the counter: it passes every key restored.
      maxKey =
          Math.max(
              Math.max(maxKey, e.number()),
              Math.max(Math.max(t.place, t.order), Math.max(e.place(), e.order())));
      if (previous != null && previous.compareTo(t) >= 0) {
        throw new IllegalArgumentException("tickets are not in line order");
      }
      if (!newTokens.add(t)) {
        throw new IllegalArgumentException("duplicate token");
      }
      t.rank = e.rank();
      t.issuedAt = e.issuedAt();
      t.lastActivity = e.lastActivity();
      t.polled = e.lastPoll() != Long.MIN_VALUE;
      t.lastPoll = t.polled ? e.lastPoll() : 0;
      t.seen = e.seen();
      t.hasPass = e.hasPass();
      t.promoted = !e.ready() && e.promoted();
      t.clientKey = e.clientKey();
      t.cookiesSentAt = now;
      t.resend = true;
      t.state = Ticket.WAITING;
      t.away = true; // until its client polls: nobody has been heard from since the export
      newIndex.insert(t);
      previous = t;
    }
    java.util.Map<PassKey, Long> newPasses = new java.util.HashMap<>();
    while (passList.hasNext()) {
      long[] p = passList.next();
      newPasses.put(new PassKey(p[0], p[1]), p[2]);
    }
    synchronized (lock) {
      if (used) {
        throw new IllegalStateException("the line has already been used");
      }
      used = true;
      tokens = newTokens;
      index = newIndex;
      counter = Math.max(counter, maxKey);
      waitingCount = newIndex.size();
      passes.clear();
      passes.putAll(newPasses);
      offerFirst(now);
      return newTokens.size();
    }
  }

  @Override
  public void close() {}

  /**
   * A ticket as exported. A client restored as ready is written back as it was read, whether or not
   * it got a slot since; a client that joined its group (a pass, a promotion) is written as ready
   * too, right behind it, as the format has no way to tie with a ready client.
   */
  private static LineEntry entry(Ticket t, boolean ready) {
    LineEntry was = t.restoredReady;
    boolean called = t.band == Ticket.CALLED;
    return new LineEntry(
        t.hi,
        t.lo,
        was != null ? was.band() : called ? 0 : t.band,
        was != null ? was.place() : t.place,
        was != null ? was.order() : t.order,
        t.rank,
        t.issuedAt,
        t.lastActivity,
        t.polled ? t.lastPoll : Long.MIN_VALUE,
        t.seen,
        t.hasPass,
        ready || called,
        t.clientKey == null ? "" : t.clientKey,
        t.promoted && !ready && !called,
        was != null ? was.number() : t.number);
  }

  /**
   * Checks the line's invariants; for tests, at quiescent points (no request mid-flight).
   *
   * @throws IllegalStateException naming the first invariant that does not hold
   */
  public void checkInvariants() {
    synchronized (lock) {
      long ready = 0;
      for (Ticket r = readyHead; r != null; r = r.right) {
        require(r.state == Ticket.READY, "ready list holds a ticket that is not READY");
        require(tokens.get(r.hi, r.lo) == r, "a ready ticket is missing from the token store");
        ready++;
      }
      require(ready == readyCount, "ready count " + readyCount + " != ready list " + ready);
      require(
          index.size() == waitingCount, "index " + index.size() + " != waiting " + waitingCount);
      require(tokens.size() == waitingCount + readyCount, "token store size mismatch");
      for (Ticket r = readyHead; r != null; r = r.right) {
        require(!(r.away && r.told), "a ready ticket is away although its client was told");
      }
      long[] present = {0};
      index.forEach(
          Integer.MAX_VALUE,
          t -> {
            require(t.state == Ticket.WAITING && tokens.get(t.hi, t.lo) == t, "bad waiter");
            present[0] += t.away ? 0 : 1;
          });
      require(
          present[0] == index.present(), "present count " + index.present() + " != " + present[0]);
      int held = inFlight.get() + (int) readyCount;
      require(
          gate.available() == gate.capacity() - held,
          "free slots " + gate.available() + " != capacity - held " + (gate.capacity() - held));
      require(
          index.present() == 0 || allowance == 0 || gate.available() <= 0,
          "a slot is free while present clients wait and the allowance allows");
      require(allowance >= 0, "negative allowance");
      require(inFlight.get() >= 0, "negative in-flight");
    }
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("line invariant broken: " + what);
    }
  }

  /**
   * Hands free slots to the first present waiters, as far as the allowance goes. Caller holds the
   * lock.
   */
  private void rebalance(long now) {
    while (allowance > 0 && index.present() > 0 && gate.tryAcquire()) {
      offer(index.firstPresent(), now);
    }
  }

  /**
   * Like {@link #rebalance}, for the reaper: a present waiter found expired at the head is retired
   * instead of being handed a slot. Returns how many were. Caller holds the lock.
   */
  private int rebalanceLive(long now, Policy p) {
    int retired = 0;
    while (allowance > 0 && index.present() > 0 && gate.available() > 0) {
      Ticket t = index.firstPresent();
      if (expired(t, now, p)) {
        retireQuietly(t);
        retired++;
      } else if (gate.tryAcquire()) {
        offer(t, now);
      } else {
        break;
      }
    }
    return retired;
  }

  /**
   * After an import: nothing is in flight and nobody has polled yet, so the first in line are
   * offered the free slots, away or not; an offer to an away client lapses after the {@linkplain
   * Policy#awayOfferWindow() shorter window}. Caller holds the lock.
   */
  private void offerFirst(long now) {
    while (allowance > 0 && waitingCount > 0 && gate.tryAcquire()) {
      offer(index.first(), now);
    }
  }

  /** Turns waiting {@code t} ready, holding a slot already taken from the gate. */
  private void offer(Ticket t, long now) {
    if (allowance != UNLIMITED) {
      allowance--;
    }
    index.remove(t);
    waitingCount--;
    t.state = Ticket.READY;
    t.readyAt = now;
    t.told = false;
    t.left = readyTail;
    t.right = null;
    if (readyTail == null) {
      readyHead = t;
    } else {
      readyTail.right = t;
    }
    readyTail = t;
    readyCount++;
  }

  /** Whether ready {@code t}'s offer has lapsed. */
  private static boolean lapsed(Ticket t, long now, Policy p) {
    return t.state == Ticket.READY && p.offerLapsed(now, t.readyAt, t.away);
  }

  /**
   * Ends ready {@code t}'s offer without ending the ticket: its slot is given back (the caller
   * hands it on) and it waits again at its own place, {@code away} unless its client is the one
   * calling. Returns whether its client had been told (a {@code TIMEOUT}). Caller holds the lock.
   */
  private boolean lapse(Ticket t, boolean away) {
    boolean told = t.told;
    unlinkReady(t);
    t.state = Ticket.WAITING;
    t.told = false;
    t.away = away;
    index.insert(t);
    waitingCount++; // published before the slot is: the fast path sees someone waits
    gate.release();
    return told;
  }

  /**
   * For a poll or claim of {@code t}: lapses its due offer, returning {@link Outcome#TIMED_OUT} if
   * told. Its client is heard from now, so it waits present and, standing ahead of everyone it was
   * offered before, gets the slot back unless a present client ahead of it takes it.
   */
  private long lapseIfDue(Ticket t, long now, Policy p) {
    if (!lapsed(t, now, p)) {
      return 0;
    }
    boolean told = lapse(t, false);
    rebalance(now);
    return told ? Outcome.TIMED_OUT : 0;
  }

  /**
   * Its client was heard from: an away waiter is passed over no more (standing ahead, it is offered
   * the next slot, at once if one is free); an offer made while away now runs its full timeout from
   * when the client is told. Caller holds the lock.
   */
  private void present(Ticket t, long now) {
    if (t.state == Ticket.READY) {
      t.away = false;
    } else {
      index.setAway(t, false);
      rebalance(now);
    }
  }

  /** Turns a ready ticket's reserved slot into an admission. Caller holds the lock. */
  private void admitReady(Ticket t) {
    tokens.remove(t);
    unlinkReady(t);
    t.state = Ticket.GONE;
    inFlight.incrementAndGet();
  }

  /**
   * Ends a ticket that will never be admitted; a freed slot is handed on. Caller holds the lock.
   */
  private void retire(Ticket t, long now) {
    if (retireQuietly(t)) {
      rebalance(now);
    }
  }

  /** Ends a ticket; returns whether it freed a slot, which the caller hands on. */
  private boolean retireQuietly(Ticket t) {
    tokens.remove(t);
    if (t.state == Ticket.WAITING) {
      index.remove(t);
      waitingCount--;
      t.state = Ticket.GONE;
    } else if (t.state == Ticket.READY) {
      unlinkReady(t);
      t.state = Ticket.GONE;
      gate.release();
      return true;
    }
    return false;
  }

  /** An expired ticket is evicted, whatever its state: a lapsed offer alone never retires one. */
  private long retireExpired(Ticket t, long now) {
    retire(t, now);
    return Outcome.of(Outcome.UNKNOWN, 0, Outcome.EVICTED);
  }

  private void unlinkReady(Ticket t) {
    if (t.left == null) {
      readyHead = t.right;
    } else {
      t.left.right = t.right;
    }
    if (t.right == null) {
      readyTail = t.left;
    } else {
      t.right.left = t.left;
    }
    t.left = null;
    t.right = null;
    readyCount--;
  }

  private static boolean expired(Ticket t, long now, Policy p) {
    return p.expired(now, t.lastActivity, t.issuedAt, t.seen);
  }

  private Ticket waitingTicket(long hi, long lo) {
    Ticket t = tokens.get(hi, lo);
    if (t == null) {
      throw new TokenNotFoundException();
    }
    if (t.state != Ticket.WAITING) {
      throw new IllegalStateException("the client was already told it is ready");
    }
    return t;
  }

  /** Copies every live ticket and its info, a chunk per lock hold so polls never stall long. */
  private void snapshot(List<Ticket> tickets, List<TicketInfo> infos) {
    List<Row> rows = new ArrayList<>(SNAPSHOT_CHUNK);
    synchronized (lock) {
      for (Ticket r = readyHead; r != null; r = r.right) {
        tickets.add(r);
        rows.add(new Row(r, 0));
      }
    }
    Ticket after = null;
    while (true) {
      rows.forEach(r -> infos.add(r.info()));
      rows.clear();
      synchronized (lock) {
        Ticket start = after == null ? index.first() : index.after(after);
        if (start == null) {
          return;
        }
        long[] position = {index.position(start) - (start.head ? 1 : 0)};
        Ticket[] last = {null};
        index.forEachFrom(
            start,
            SNAPSHOT_CHUNK,
            t -> {
              if (t.head) {
                position[0]++;
              }
              tickets.add(t);
              rows.add(new Row(t, position[0]));
              last[0] = t;
            });
        after = keyOf(last[0]);
      }
    }
  }

  /** A ticket's fields copied under the lock; the record is built after it is released. */
  private record Row(
      long hi,
      long lo,
      long position,
      long issuedAt,
      long lastPoll,
      boolean polled,
      boolean seen,
      boolean hasPass,
      int rank,
      String clientKey) {
    Row(Ticket t, long position) {
      this(
          t.hi,
          t.lo,
          position,
          t.issuedAt,
          t.lastPoll,
          t.polled,
          t.seen,
          t.hasPass,
          t.rank,
          t.clientKey);
    }

    TicketInfo info() {
      return new TicketInfo(
          Tokens.format(hi, lo),
          position,
          clientKey == null ? "" : clientKey,
          Instant.ofEpochMilli(issuedAt),
          polled ? Instant.ofEpochMilli(lastPoll) : null,
          seen,
          hasPass,
          rank);
    }
  }

  private static Ticket keyOf(Ticket t) {
    return key(t.band, t.place, t.order);
  }

  /** A probe for index searches: a ticket with only an ordering key. */
  private static Ticket key(int band, long place, long order) {
    Ticket k = new Ticket(0, 0, 0);
    k.band = band;
    k.place = place;
    k.order = order;
    return k;
  }

  private static TicketInfo info(Ticket t, long position) {
    return new TicketInfo(
        Tokens.format(t.hi, t.lo),
        position,
        t.clientKey == null ? "" : t.clientKey,
        Instant.ofEpochMilli(t.issuedAt),
        t.polled ? Instant.ofEpochMilli(t.lastPoll) : null,
        t.seen,
        t.hasPass,
        t.rank);
  }

  private record PassKey(long hi, long lo) {}
}
