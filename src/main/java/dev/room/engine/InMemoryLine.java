package dev.room.engine;

import dev.room.TicketInfo;
import dev.room.spi.Identities;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.LineJournal;
import dev.room.spi.Move;
import dev.room.spi.Policy;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The default line: one process, one lock, no allocation on a status poll.
 *
 * <p>Implementation notes. This class holds the lock and composes one structure per row of the
 * design: the {@link TicketCounter} (arrival numbers and fresh keys), the {@link SlotGate} (free
 * slots), the {@link LineIndex} (waiting tickets in line order), the {@link ServingWindow} (the
 * ready list, the counts and the allowance; hands free slots to the first present waiters), the
 * {@link TokenTable} (token to ticket), the {@link Retirement} path, the {@link Promoter} (every
 * move within the line), the {@link TicketDesk} (arrive, poll, claim), the {@link PassBook}, the
 * {@link IdentityBook} (one place per identity: the token table releases a ticket's identity as it
 * leaves), and the chunked {@link LineReader} and {@link LineArchive}. Only the pass book is
 * thread-safe on its own; the rest is guarded by this line's lock, and the window's counts and
 * allowance are volatile for the fast path. The fast path itself ({@link #tryEnter}, {@link #exit})
 * lives here, next to the notes on its races.
 *
 * <p>Exactly once. A ticket lives in the token table while it is WAITING or READY; leaving it
 * (admission in {@link ServingWindow#admitReady} or {@link Retirement}) is the single atomic step
 * that ends it, so admission racing eviction accounts for the ticket exactly once. Retiring a
 * waiting ticket removes it from the index, so everyone behind moves up at once and the window
 * never has to skip it later (the role of the Go version's ghost ledger). Retiring a ready ticket
 * returns its reserved slot, which moves the window at once.
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
 * releases it and then, when someone waits, rebalances under the lock; every path that queues a
 * ticket publishes the new waiting count before trying the gate. One of the two always sees the
 * other, so a slot never sits free while the line waits. The fast path takes a slot without the
 * lock only when nobody waits, so it never passes a waiting client; while only away clients wait a
 * newcomer queues and is handed a free slot at once.
 *
 * <p>Race: the allowance is written under the lock and read without it by the fast path. An
 * unlimited allowance costs the fast path one volatile read; a limited one sends it through the
 * lock so the allowance and the slot are taken together. A fast path that saw an unlimited
 * allowance checks it again after taking its slot and, if a hold or a rate was set meanwhile, gives
 * the slot back and retries through the lock: so once {@link #setAllowance} returns, no admission
 * slips past it.
 *
 * <p>Lock order: this line's lock, then the gate's monitor (resize only). Listeners and user
 * predicates never run under the lock. The fast path, {@link #exit}, {@link #poll} and {@link
 * #claim} allocate nothing.
 */
public final class InMemoryLine implements Line {
  private static final int SCAN_CHUNK = 4096;

  /** A plain monitor: contended acquisitions allocate nothing on the heap, unlike a queued lock. */
  private final Object lock = new Object();

  private final SlotGate gate;
  private final LineIndex index = new LineIndex();
  private final TokenTable tokens = new TokenTable();
  private final TicketCounter counter = new TicketCounter();
  private final ServingWindow window;
  private final Retirement retirement;
  private final Promoter promoter;
  private final TicketDesk desk;
  private final PassBook passes = new PassBook();
  private final IdentityBook identities = new IdentityBook();
  private final LineReader reader;
  private final LineArchive archive;
  private volatile boolean used;

  public InMemoryLine(int capacity) {
    this.gate = new SlotGate(capacity);
    this.window = new ServingWindow(gate, index, tokens, counter);
    this.retirement = new Retirement(tokens, index, window);
    this.promoter = new Promoter(index, tokens, counter, window);
    this.desk = new TicketDesk(tokens, index, counter, window, retirement, promoter, identities);
    tokens.releaseTo(identities);
    this.reader = new LineReader(lock, index, tokens, window);
    this.archive = new LineArchive(lock, index, window, identities);
  }

  @Override
  public int capacity() {
    return gate.capacity();
  }

  @Override
  public void setCapacity(int capacity, long now) {
    synchronized (lock) {
      window.journal.record(LineJournal.CAPACITY, 0, 0, capacity, 0, 0);
      if (gate.resize(capacity) > 0) {
        window.rebalance(now);
      }
    }
  }

  @Override
  public int inFlight() {
    return window.inFlight();
  }

  @Override
  public int freeSlots() {
    return gate.available();
  }

  @Override
  public long waiting() {
    return window.waiting();
  }

  @Override
  public long ready() {
    return window.ready();
  }

  @Override
  public boolean used() {
    return used;
  }

  @Override
  public long allowance() {
    return window.allowance();
  }

  @Override
  public void setAllowance(long allowance, long now) {
    if (allowance < 0) {
      throw new IllegalArgumentException("allowance must not be negative, was " + allowance);
    }
    synchronized (lock) {
      window.setAllowance(allowance, now);
    }
  }

  @Override
  public long replaceAllowance(long allowance, long now) {
    synchronized (lock) {
      long was = window.allowance();
      setAllowance(allowance, now);
      return was;
    }
  }

  @Override
  public void addAllowance(long n, long max, long now) {
    synchronized (lock) {
      window.addAllowance(n, max, now);
    }
  }

  @Override
  public void hold(boolean held, long now) {
    synchronized (lock) {
      window.hold(held, now);
    }
  }

  // rate bucket (u1-rate)
  @Override
  public long meter(double perSecond, long burst, long now) {
    if (!(perSecond >= 0) || Double.isInfinite(perSecond) || (perSecond > 0 && burst < 1)) {
      throw new IllegalArgumentException("bad rate " + perSecond + " or burst " + burst);
    }
    synchronized (lock) {
      return window.meter(perSecond, burst, now);
    }
  }

  @Override
  public long refill(long now) {
    synchronized (lock) {
      return window.refill(now);
    }
  }

  // end rate bucket

  @Override
  public boolean tryEnter() {
    if (window.waiting() != 0) {
      return false;
    }
    long a = window.allowance();
    if (a != UNLIMITED) {
      return a > 0 && tryEnterMetered();
    }
    if (!gate.tryAcquire()) {
      return false;
    }
    if (window.allowance() != UNLIMITED) { // a hold or a rate arrived meanwhile: through the lock
      giveBack();
      return tryEnterMetered();
    }
    window.enter();
    if (!used) {
      used = true;
    }
    return true;
  }

  /** The fast path under a limited allowance: the slot and the allowance are taken together. */
  private boolean tryEnterMetered() {
    synchronized (lock) {
      if (window.waiting() != 0 || window.allowance() == 0 || !gate.tryAcquire()) {
        return false;
      }
      window.enterMetered();
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
    if (window.waiting() != 0) {
      synchronized (lock) {
        window.rebalance(window.allowanceChangedAt());
      }
    }
  }

  @Override
  public void exit(long now) {
    window.leave();
    if (window.waiting() != 0) {
      synchronized (lock) {
        window.rebalance(now);
      }
    }
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    synchronized (lock) {
      used = true;
      return desk.arrive(hi, lo, null, clientKey, toFront, now, p);
    }
  }

  // identity (one place per person): the rule lives in TicketDesk and IdentityBook
  @Override
  public long arrive(
      long hi, long lo, String identity, String clientKey, boolean toFront, long now, Policy p) {
    if (Identities.anonymous(identity)) {
      return arrive(hi, lo, clientKey, toFront, now, p);
    }
    String prehash = Identities.prehash(identity);
    synchronized (lock) {
      used = true;
      return desk.arrive(hi, lo, identities.hash(prehash), clientKey, toFront, now, p);
    }
  }

  @Override
  public boolean keepsIdentities() {
    return true;
  }

  @Override
  public String identitySalt() {
    synchronized (lock) {
      return identities.salt();
    }
  }

  @Override
  public int restore(
      Iterator<LineEntry> entries, Iterator<long[]> passList, String identitySalt, long now) {
    if (identitySalt != null && !Identities.validSalt(identitySalt)) {
      throw new IllegalArgumentException("identity salt must be 32 lowercase hex digits");
    }
    return restoreWith(entries, passList, identitySalt, now);
  }

  // end identity

  @Override
  public long poll(long hi, long lo, long now, Policy p) {
    synchronized (lock) {
      return desk.poll(hi, lo, now, p);
    }
  }

  @Override
  public long claim(long hi, long lo, long now, Policy p) {
    synchronized (lock) {
      return desk.claim(hi, lo, now, p);
    }
  }

  @Override
  public int lapseAbsent(long now, Policy p) {
    synchronized (lock) {
      return window.lapseAbsent(now, p.presenceWindow());
    }
  }

  @Override
  public boolean remove(long hi, long lo, long now) {
    synchronized (lock) {
      Ticket t = tokens.get(hi, lo);
      if (t == null) {
        return false;
      }
      retirement.retire(t, now);
      return true;
    }
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    List<Ticket> candidates = new ArrayList<>();
    List<TicketInfo> infos = new ArrayList<>();
    reader.snapshot(candidates, infos);
    List<Ticket> chosen = new ArrayList<>();
    for (int i = 0; i < infos.size(); i++) {
      if (match.test(infos.get(i))) {
        chosen.add(candidates.get(i));
      }
    }
    int removed = 0;
    int chunk = LineReader.SNAPSHOT_CHUNK;
    for (int from = 0; from < chosen.size(); from += chunk) {
      synchronized (lock) {
        for (Ticket t : chosen.subList(from, Math.min(chosen.size(), from + chunk))) {
          if (t.state != Ticket.GONE && tokens.get(t.hi, t.lo) == t) {
            retirement.retire(t, now);
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
      return promoter.promote(hi, lo, target);
    }
  }

  @Override
  public Move quote(long hi, long lo, long target) {
    synchronized (lock) {
      return promoter.quote(hi, lo, target);
    }
  }

  @Override
  public boolean rank(long hi, long lo, int rank) {
    synchronized (lock) {
      return promoter.rank(hi, lo, rank);
    }
  }

  @Override
  public int drawPresale(IntFunction<int[]> order, long now) {
    synchronized (lock) {
      return promoter.drawPresale(order);
    }
  }

  @Override
  public List<TicketInfo> queue(int limit) {
    return reader.queue(limit);
  }

  @Override
  public TicketInfo ticket(long hi, long lo) {
    return reader.ticket(hi, lo);
  }

  @Override
  public int[] evict(long now, Policy p) {
    int[] counts = {0, 0}; // evicted, timed out
    Ticket[] due = new Ticket[SCAN_CHUNK];
    Ticket[] all;
    synchronized (lock) {
      all = tokens.snapshot(); // every ticket at the pass's start, whatever moves the table later
    }
    for (int from = 0; from < all.length; from += SCAN_CHUNK) {
      synchronized (lock) {
        retirement.sweep(all, from, Math.min(all.length, from + SCAN_CHUNK), now, p, counts, due);
      }
    }
    synchronized (lock) {
      identities.sweep(now, p.ttl());
    }
    return counts;
  }

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    synchronized (lock) { // with the used flag, so a restore either refuses or runs before it
      used = true;
      passes.grant(hi, lo, expiresAt);
    }
  }

  @Override
  public long passExpiry(long hi, long lo) {
    return passes.expiry(hi, lo);
  }

  @Override
  public int sweepPasses(long now) {
    return passes.sweep(now);
  }

  @Override
  public void export(Consumer<LineEntry> sink, Consumer<long[]> passSink) {
    archive.export(sink);
    passes.export(passSink);
  }

  @Override
  public int restore(Iterator<LineEntry> entries, Iterator<long[]> passList, long now) {
    return restoreWith(entries, passList, null, now);
  }

  private int restoreWith(
      Iterator<LineEntry> entries, Iterator<long[]> passList, String salt, long now) {
    if (used) {
      throw new IllegalStateException("the line has already been used");
    }
    LineArchive.Restored read = LineArchive.read(entries, now);
    Map<PassBook.PassKey, Long> newPasses = PassBook.read(passList);
    synchronized (lock) {
      if (used) {
        throw new IllegalStateException("the line has already been used");
      }
      used = true;
      tokens.takeAll(read.tokens());
      identities.restore(salt, read.identities());
      index.takeAll(read.index());
      archive.takeOver(read);
      counter.passAll(read.maxKey());
      window.restored();
      index.forEach(Integer.MAX_VALUE, t -> held(window.journal, t, 0));
      passes.replace(newPasses);
      window.offerFirst(now);
      return tokens.size();
    }
  }

  @Override
  public boolean journal(LineJournal journal) {
    LineJournal j = journal == null ? LineJournal.NONE : journal;
    synchronized (lock) {
      window.journal = j;
      for (Ticket r = window.firstReady(); r != null; r = r.right) {
        held(j, r, LineJournal.READY);
      }
      index.forEach(Integer.MAX_VALUE, t -> held(j, t, 0));
      j.record(LineJournal.CAPACITY, 0, 0, gate.capacity(), 0, 0);
      j.record(LineJournal.ALLOWANCE, 0, 0, window.allowance(), 0, 0);
    }
    return true;
  }

  private static void held(LineJournal j, Ticket t, long ready) {
    j.record(
        LineJournal.HELD, t.number, t.band, t.place, t.order, ServingWindow.keyFlags(t) | ready);
  }

  @Override
  public void close() {}

  /**
   * Checks the line's invariants; for tests, at quiescent points (no request mid-flight).
   *
   * @throws IllegalStateException naming the first invariant that does not hold
   */
  public void checkInvariants() {
    synchronized (lock) {
      window.checkInvariants();
      int[] bound = {0};
      tokens.forEach(
          t -> {
            String identity = identities.of(t);
            if (identity != null) {
              if (identities.holder(identity) != t) {
                throw new IllegalStateException("a ticket's identity is not bound to it");
              }
              bound[0]++;
            }
          });
      if (bound[0] != identities.size() || bound[0] != identities.boundTickets()) {
        throw new IllegalStateException("an identity is bound to a ticket that ended");
      }
    }
  }
}
