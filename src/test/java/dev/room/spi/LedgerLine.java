package dev.room.spi;

import dev.room.TicketInfo;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * A line that keeps a ledger of every ticket's life from the outside, from what the line itself
 * reports: a ticket is <em>issued</em> when an arrival queues it (or an import restores it), and
 * ends exactly once, <em>admitted</em> by a claim or <em>retired</em> by a removal, an eviction or
 * an expiry found by a poll or claim (a lapsed offer is no ending: its ticket waits on). So at
 * every quiescent point {@code issued = admitted + retired + live}, whichever implementation keeps
 * the state: a line that loses a ticket, keeps one twice or reports an end it did not make breaks
 * the equation.
 *
 * <p>Counting reads the outcomes the line returns, never its storage, so the same check runs on
 * every implementation. Thread-safe: the counters are atomic and every call delegates.
 */
public final class LedgerLine implements Line {
  private final Line line;
  private final AtomicLong issued = new AtomicLong();
  private final AtomicLong admitted = new AtomicLong();
  private final AtomicLong retired = new AtomicLong();

  public LedgerLine(Line line) {
    this.line = line;
  }

  /** The line this one keeps the ledger of. */
  public Line delegate() {
    return line;
  }

  public long issued() {
    return issued.get();
  }

  public long admitted() {
    return admitted.get();
  }

  public long retired() {
    return retired.get();
  }

  /**
   * Checks {@code issued = admitted + retired + live}; call it where no operation is in progress.
   *
   * @throws AssertionError naming the four figures when the ledger does not balance
   */
  public void checkLedger() {
    long live = line.live();
    long i = issued.get();
    long a = admitted.get();
    long r = retired.get();
    if (i != a + r + live) {
      throw new AssertionError(
          "ledger: issued "
              + i
              + " != admitted "
              + a
              + " + retired "
              + r
              + " + live "
              + live
              + " (waiting "
              + line.waiting()
              + ", ready "
              + line.ready()
              + ")");
    }
  }

  private long ended(long outcome) {
    int kind = Outcome.kind(outcome);
    if (kind == Outcome.ADMITTED) {
      admitted.incrementAndGet();
    } else if (kind == Outcome.UNKNOWN && Outcome.has(outcome, Outcome.EVICTED)) {
      retired.incrementAndGet();
    }
    return outcome;
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    long o = line.arrive(hi, lo, clientKey, toFront, now, p);
    if (Outcome.kind(o) == Outcome.WAITING) {
      issued.incrementAndGet();
    }
    return o; // ADMITTED: the caller holds a slot and no ticket was kept
  }

  @Override
  public long arrive(
      long[] token, String identity, String clientKey, boolean toFront, long now, Policy p) {
    return counted(line.arrive(token, identity, clientKey, toFront, now, p));
  }

  @Override
  public long arrive(
      long hi, long lo, String identity, String clientKey, boolean toFront, long now, Policy p) {
    return counted(line.arrive(hi, lo, identity, clientKey, toFront, now, p));
  }

  /** Counts an arrival's outcome, with or without an identity. */
  private long counted(long o) {
    if (Outcome.has(o, Outcome.EVICTED)) {
      retired.incrementAndGet(); // the identity's expired place, retired by this arrival
    }
    if (Outcome.has(o, Outcome.REJOINED)) {
      if (Outcome.kind(o) == Outcome.ADMITTED) {
        admitted.incrementAndGet(); // the place taken over was ready: it ended admitted
      }
      return o; // no ticket issued: an existing one moved
    }
    if (Outcome.kind(o) == Outcome.WAITING) {
      issued.incrementAndGet();
    }
    return o;
  }

  @Override
  public boolean keepsIdentities() {
    return line.keepsIdentities();
  }

  @Override
  public String identitySalt() {
    return line.identitySalt();
  }

  @Override
  public int restore(
      Iterator<LineEntry> tickets, Iterator<long[]> passes, String identitySalt, long now) {
    int n = line.restore(tickets, passes, identitySalt, now);
    issued.addAndGet(n);
    return n;
  }

  @Override
  public long poll(long hi, long lo, long now, Policy p) {
    long o = line.poll(hi, lo, now, p);
    if (Outcome.kind(o) == Outcome.UNKNOWN) {
      ended(o);
    }
    return o;
  }

  @Override
  public long claim(long hi, long lo, long now, Policy p) {
    return ended(line.claim(hi, lo, now, p));
  }

  @Override
  public boolean remove(long hi, long lo, long now) {
    boolean removed = line.remove(hi, lo, now);
    if (removed) {
      retired.incrementAndGet();
    }
    return removed;
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    int n = line.removeIf(match, now);
    retired.addAndGet(n);
    return n;
  }

  @Override
  public int[] evict(long now, Policy p) {
    int[] r = line.evict(now, p);
    retired.addAndGet(r[0]); // r[1] counts lapsed offers: those tickets wait on, they did not end
    return r;
  }

  @Override
  public int lapseAbsent(long now, Policy p) {
    return line.lapseAbsent(now, p); // lapsed offers wait on: nothing ends
  }

  @Override
  public int restore(Iterator<LineEntry> tickets, Iterator<long[]> passes, long now) {
    int n = line.restore(tickets, passes, now);
    issued.addAndGet(n);
    return n;
  }

  // ── Plain delegation ───────────────────────────────────────────────────

  @Override
  public int capacity() {
    return line.capacity();
  }

  @Override
  public void setCapacity(int capacity, long now) {
    line.setCapacity(capacity, now);
  }

  @Override
  public int inFlight() {
    return line.inFlight();
  }

  @Override
  public int freeSlots() {
    return line.freeSlots();
  }

  @Override
  public long waiting() {
    return line.waiting();
  }

  @Override
  public long ready() {
    return line.ready();
  }

  @Override
  public long live() {
    return line.live();
  }

  @Override
  public boolean used() {
    return line.used();
  }

  @Override
  public long allowance() {
    return line.allowance();
  }

  @Override
  public void setAllowance(long allowance, long now) {
    line.setAllowance(allowance, now);
  }

  @Override
  public void addAllowance(long n, long max, long now) {
    line.addAllowance(n, max, now);
  }

  @Override
  public long replaceAllowance(long allowance, long now) {
    return line.replaceAllowance(allowance, now);
  }

  @Override
  public void hold(boolean held, long now) {
    line.hold(held, now);
  }

  // rate bucket (u1-rate)
  @Override
  public long meter(double perSecond, long burst, long now) {
    return line.meter(perSecond, burst, now);
  }

  @Override
  public long refill(long now) {
    return line.refill(now);
  }

  // end rate bucket

  @Override
  public Controls controls() {
    return line.controls();
  }

  // The shared stores go through unwrapped: they are the line's, and a room over this wrapper must
  // keep its sessions and joins where the line keeps them (in Redis, for a RedisLine).
  @Override
  public Optional<SessionStore> sharedSessions() {
    return line.sharedSessions();
  }

  @Override
  public JoinLedger joinLedger() {
    return line.joinLedger();
  }

  @Override
  public FleetSettings fleetSettings() {
    return line.fleetSettings();
  }

  @Override
  public long stateLosses() {
    return line.stateLosses();
  }

  // pre-sale and health window (u2-sale)
  @Override
  public PresaleStore presales() {
    return line.presales();
  }

  @Override
  public HealthWindow healthWindow() {
    return line.healthWindow();
  }

  @Override
  public boolean tryEnter() {
    return line.tryEnter();
  }

  @Override
  public void exit(long now) {
    line.exit(now);
  }

  @Override
  public Move promote(long hi, long lo, long target) {
    return line.promote(hi, lo, target);
  }

  @Override
  public boolean rank(long hi, long lo, int rank) {
    return line.rank(hi, lo, rank);
  }

  @Override
  public Move quote(long hi, long lo, long target) {
    return line.quote(hi, lo, target);
  }

  @Override
  public boolean journal(LineJournal journal) {
    return line.journal(journal);
  }

  @Override
  public int drawPresale(IntFunction<int[]> order, long now) {
    return line.drawPresale(order, now);
  }

  @Override
  public List<TicketInfo> queue(int limit) {
    return line.queue(limit);
  }

  @Override
  public TicketInfo ticket(long hi, long lo) {
    return line.ticket(hi, lo);
  }

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    line.grantPass(hi, lo, expiresAt);
  }

  @Override
  public long passExpiry(long hi, long lo) {
    return line.passExpiry(hi, lo);
  }

  @Override
  public int sweepPasses(long now) {
    return line.sweepPasses(now);
  }

  @Override
  public void export(Consumer<LineEntry> tickets, Consumer<long[]> passes) {
    line.export(tickets, passes);
  }

  @Override
  public void close() {
    line.close();
  }
}
