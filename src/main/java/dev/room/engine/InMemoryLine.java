package dev.room.engine;

import dev.room.TicketInfo;
import dev.room.spi.Identities;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.LineJournal;
import dev.room.spi.Move;
import dev.room.spi.Policy;
import java.util.Iterator;
import java.util.List;
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
 * {@link TokenStore} (token to ticket), the {@link Retirement} path, the {@link Promoter} (every
 * move within the line), the {@link TicketDesk} (arrive, poll, claim), the {@link PassBook}, the
 * {@link IdentityBook} (one place per identity: the token store releases a ticket's identity as it
 * leaves), the chunked {@link LineReader}, {@link LineArchive} and {@link LineSweeps}, and the
 * {@link Entrance}: the lock-free fast path ({@link #tryEnter}, {@link #exit}) and the settings it
 * reads without the lock, with the notes on their races. Only the pass book is thread-safe on its
 * own; the rest is guarded by this line's lock, and the window's counts and allowance are volatile
 * for the fast path.
 *
 * <p>Exactly once. A ticket lives in the token store while it is WAITING or READY; leaving it
 * (admission in {@link ServingWindow#admitReady} or {@link Retirement}) is the single atomic step
 * that ends it, so admission racing eviction accounts for the ticket exactly once. Presence (a
 * waiting ticket is present or away): see {@link ServingWindow}.
 *
 * <p>Lock order: this line's lock, then the gate's monitor (resize only). Listeners and user
 * predicates never run under the lock. The fast path, {@link #exit}, {@link #poll} and {@link
 * #claim} allocate nothing.
 */
public final class InMemoryLine implements Line {
  /** A plain monitor: contended acquisitions allocate nothing on the heap, unlike a queued lock. */
  private final Object lock = new Object();

  private final SlotGate gate;
  private final LineIndex index = new LineIndex();
  private final TokenStore tokens = new TokenStore();
  private final TicketCounter counter = new TicketCounter();
  private final ServingWindow window;
  private final Promoter promoter;
  private final TicketDesk desk;
  private final PassBook passes = new PassBook();
  private final IdentityBook identities = new IdentityBook();
  private final LineReader reader;
  private final LineArchive archive;
  private final LineSweeps sweeps;
  private final Entrance entrance;
  private final LineRestore restorer;

  public InMemoryLine(int capacity) {
    this.gate = new SlotGate(capacity);
    this.window = new ServingWindow(gate, index, tokens, counter);
    Retirement retirement = new Retirement(tokens, index, window);
    this.promoter = new Promoter(index, tokens, counter, window);
    this.desk = new TicketDesk(tokens, index, counter, window, retirement, promoter, identities);
    tokens.releaseTo(identities);
    this.reader = new LineReader(lock, index, tokens, window);
    this.archive = new LineArchive(lock, index, window, identities);
    this.sweeps = new LineSweeps(lock, tokens, retirement, identities, reader);
    this.entrance = new Entrance(lock, gate, window);
    this.restorer =
        new LineRestore(
            lock, entrance, tokens, index, counter, window, identities, archive, passes);
  }

  @Override
  public int capacity() {
    return gate.capacity();
  }

  @Override
  public void setCapacity(int capacity, long now) {
    entrance.setCapacity(capacity, now);
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
    return entrance.used;
  }

  @Override
  public long allowance() {
    return window.allowance();
  }

  @Override
  public void setAllowance(long allowance, long now) {
    entrance.setAllowance(allowance, now);
  }

  @Override
  public long replaceAllowance(long allowance, long now) {
    return entrance.replaceAllowance(allowance, now);
  }

  @Override
  public void addAllowance(long n, long max, long now) {
    entrance.addAllowance(n, max, now);
  }

  @Override
  public void hold(boolean held, long now) {
    entrance.hold(held, now);
  }

  // rate bucket (u1-rate)
  @Override
  public long meter(double perSecond, long burst, long now) {
    return entrance.meter(perSecond, burst, now);
  }

  @Override
  public long refill(long now) {
    return entrance.refill(now);
  }

  // end rate bucket

  @Override
  public boolean tryEnter() {
    return entrance.tryEnter();
  }

  @Override
  public void exit(long now) {
    entrance.exit(now);
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    synchronized (lock) {
      entrance.used = true;
      return desk.arrive(new long[] {hi, lo}, false, null, clientKey, toFront, now, p);
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
      entrance.used = true;
      return desk.arrive(
          new long[] {hi, lo}, false, identities.hash(prehash), clientKey, toFront, now, p);
    }
  }

  /** Mints the token's low 32 bits: the ticket's record, found by a poll in one read. */
  @Override
  public long arrive(
      long[] token, String identity, String clientKey, boolean toFront, long now, Policy p) {
    String prehash = Identities.anonymous(identity) ? null : Identities.prehash(identity);
    synchronized (lock) {
      entrance.used = true;
      String hash = prehash == null ? null : identities.hash(prehash);
      return desk.arrive(token, true, hash, clientKey, toFront, now, p);
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
    return restorer.restore(entries, passList, identitySalt, now);
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
      return window.absence.lapseAbsent(now, p.presenceWindow());
    }
  }

  @Override
  public boolean remove(long hi, long lo, long now) {
    return sweeps.remove(hi, lo, now);
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    return sweeps.removeIf(match, now);
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
    return sweeps.evict(now, p);
  }

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    synchronized (lock) { // with the used flag, so a restore either refuses or runs before it
      entrance.used = true;
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
    return restorer.restore(entries, passList, null, now);
  }

  @Override
  public boolean journal(LineJournal journal) {
    synchronized (lock) {
      window.attach(journal == null ? LineJournal.NONE : journal);
    }
    return true;
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
      identities.checkInvariants(tokens);
    }
  }
}
