package dev.room.engine;

import dev.room.spi.Line;
import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The serving window: who may enter. It holds the ready list (tickets each holding one reserved
 * slot), the waiting and ready counts, the allowance and the in-flight count, and hands free slots
 * to the first <em>present</em> waiters ({@link #rebalance}), offers, lapses offers and admits.
 *
 * <p>Presence. A waiting ticket is present or {@linkplain Ticket#away away}. Away tickets are the
 * restored ones whose client has not polled since the import and the ones whose offer lapsed; they
 * keep their place (and count in everyone's position) but a freed slot goes to the first
 * <em>present</em> waiter, found through the index's present counts. A poll or claim makes a ticket
 * present again; standing ahead, it is offered the next slot that frees (at once when one is free).
 * A lapsed offer is not an ending: the ticket goes back to waiting at its own place.
 *
 * <p>The counts and the allowance are volatile: the fast path reads them without the lock. Every
 * other method is called with the owning line's lock held; a path that queues a ticket publishes
 * the new waiting count before a slot it frees, so the lock-free fast path sees that someone waits.
 */
final class ServingWindow {
  private final SlotGate gate;
  private final LineIndex index;
  private final TokenTable tokens;
  private final TicketCounter counter;
  private final AtomicInteger inFlight = new AtomicInteger();

  private Ticket readyHead;
  private Ticket readyTail;
  private volatile long waitingCount;
  private volatile long readyCount;
  private volatile long allowance = Line.UNLIMITED;
  private volatile long allowanceChangedAt;
  private boolean held; // Line.hold: the allowance is 0 and stays so until the hold is lifted
  private final RateBucket bucket = new RateBucket(); // Line.meter: the admission rate

  /** The admission log's view of the line; guarded by the line's lock like the rest. */
  LineJournal journal = LineJournal.NONE;

  ServingWindow(SlotGate gate, LineIndex index, TokenTable tokens, TicketCounter counter) {
    this.gate = gate;
    this.index = index;
    this.tokens = tokens;
    this.counter = counter;
  }

  long waiting() {
    return waitingCount;
  }

  long ready() {
    return readyCount;
  }

  int inFlight() {
    return inFlight.get();
  }

  long allowance() {
    return allowance;
  }

  /** When the allowance last changed; stands in for now when the fast path gives a slot back. */
  long allowanceChangedAt() {
    return allowanceChangedAt;
  }

  /** The first ready ticket (the rest follow through {@link Ticket#right}), or null. */
  Ticket firstReady() {
    return readyHead;
  }

  void setAllowance(long allowance, long now) {
    if (held) {
      return;
    }
    bucket.stop(); // an allowance set outright replaces the rate
    this.allowance = allowance;
    allowanceChangedAt = now;
    journal.record(LineJournal.ALLOWANCE, 0, 0, allowance, 0, 0);
    rebalance(now);
  }

  /**
   * {@link Line#hold}: while held the allowance is 0 and neither set nor refilled; once lifted it
   * stays 0 until set.
   */
  void hold(boolean hold, long now) {
    if (hold && !held) {
      bucket.bank(bucket.metered() ? allowance : 0); // a metered line keeps its bucket's content
      if (allowance != 0) {
        allowance = 0;
        journal.record(LineJournal.ALLOWANCE, 0, 0, 0, 0, 0);
      }
      allowanceChangedAt = now;
    } else if (!hold && held && bucket.metered()) {
      held = false;
      store(bucket.banked(), now);
      bucket.bank(0);
    }
    held = hold;
  }

  // rate bucket (u1-rate)
  /** {@link Line#meter}: the bucket is this window's; its content is the allowance unless held. */
  long meter(double perSecond, long burst, long now) {
    if (!(perSecond > 0)) {
      if (bucket.metered()) {
        bucket.stop();
        if (!held) {
          store(Line.UNLIMITED, now);
        }
      }
      return Long.MAX_VALUE;
    }
    if (bucket.metered()) {
      store(bucket.change(perSecond, burst, bucket.accrue(content(), now)), now);
    } else {
      bucket.start(perSecond, burst, now);
      store(burst, now); // a new bucket starts full
    }
    return bucket.nextAt();
  }

  /** {@link Line#refill}: adds what accrued since the last refill, by whichever room. */
  long refill(long now) {
    if (!bucket.metered()) {
      return Long.MAX_VALUE;
    }
    store(bucket.accrue(content(), now), now);
    return bucket.nextAt();
  }

  private long content() {
    return held ? bucket.banked() : allowance;
  }

  /** Puts {@code content} in the bucket: the allowance, or set aside while held. */
  private void store(long content, long now) {
    if (held) {
      bucket.bank(content);
      return;
    }
    if (content != allowance) {
      allowance = content;
      allowanceChangedAt = now;
      journal.record(LineJournal.ALLOWANCE, 0, 0, content, 0, 0);
      rebalance(now);
    }
  }

  // end rate bucket

  void addAllowance(long n, long max, long now) {
    if (held) {
      return;
    }
    long a = allowance;
    if (a != Line.UNLIMITED && a < max && n > 0) {
      allowance = a + Math.min(n, max - a);
      allowanceChangedAt = now;
      journal.record(LineJournal.ALLOWANCE, 0, 0, allowance, 0, 0);
    }
    rebalance(now);
  }

  /** Counts in an admission whose slot was just taken, using one of a limited allowance. */
  void enterMetered() {
    if (allowance != Line.UNLIMITED) {
      allowance--;
    }
    inFlight.incrementAndGet();
    journal.record(LineJournal.ENTER, 0, 0, 0, 0, 0);
  }

  /** Counts in a fast-path admission whose slot was just taken; lock-free, allocation-free. */
  void enter() {
    inFlight.incrementAndGet();
  }

  /** Counts out a finished admission and frees its slot; the caller rebalances if someone waits. */
  void leave() {
    inFlight.decrementAndGet();
    gate.release();
  }

  /** Gives back the slot a retired ready ticket held; the caller hands it on. */
  void releaseReserved() {
    gate.release();
  }

  boolean slotFree() {
    return gate.available() > 0;
  }

  /** Takes a free slot for an {@link #offer}. */
  boolean tryReserve() {
    return gate.tryAcquire();
  }

  /** Counts in waiting ticket {@code t}, already in the index. */
  void queued() {
    waitingCount++;
  }

  /** Takes waiting {@code t} out of the index. */
  void dequeue(Ticket t) {
    index.remove(t);
    waitingCount--;
  }

  /** After a restore: the index was filled at once. */
  void restored() {
    waitingCount = index.size();
  }

  /**
   * Hands free slots to the first present waiters, as far as the allowance goes; a waiter silent
   * for the presence window is passed over on the way ({@link #passOver}).
   */
  void rebalance(long now) {
    while (allowance > 0 && index.present() > 0 && gate.available() > 0) {
      Ticket t = index.firstPresent();
      if (passOver(t, now)) {
        continue;
      }
      if (!gate.tryAcquire()) {
        break; // the lock-free fast path took the slot meanwhile
      }
      offer(t, now);
    }
  }

  // ── Absence (issue 16: keep the origin busy) ───────────────────────────

  private long presenceWindow; // Line.lapseAbsent puts it in force; 0 = off

  /**
   * Turns waiting {@code t} away when its client was silent for the presence window: a slot offered
   * to a page that stopped polling sits idle until the offer lapses. It keeps its place; its next
   * poll makes it present again, and standing ahead it gets the next slot that frees.
   */
  boolean passOver(Ticket t, long now) {
    if (presenceWindow <= 0 || now - t.lastActivity < presenceWindow) {
      return false;
    }
    journal.record(LineJournal.ABSENT, t.number, 0, t.lastActivity, presenceWindow, 0);
    index.setAway(t, true);
    return true;
  }

  /**
   * {@link Line#lapseAbsent}: puts the window in force, lapses the offers whose clients were not
   * told and have been silent for it (each waits again, away, at its own place) and hands their
   * slots on. Walks the ready list, at most capacity long. Returns how many lapsed.
   */
  int lapseAbsent(long now, long window) {
    presenceWindow = Math.max(0, window);
    int lapsed = 0;
    if (presenceWindow > 0) {
      for (Ticket r = readyHead; r != null; ) {
        Ticket next = r.right;
        if (!r.told() && now - r.lastActivity >= presenceWindow) {
          journal.record(LineJournal.ABSENT, r.number, 0, r.lastActivity, presenceWindow, 0);
          lapse(r, true);
          lapsed++;
        }
        r = next;
      }
    }
    if (lapsed > 0 || (index.present() > 0 && gate.available() > 0)) {
      rebalance(now);
    }
    return lapsed;
  }

  /**
   * After an import: nothing is in flight and nobody has polled yet, so the first in line are
   * offered the free slots, away or not; an offer to an away client lapses after the {@linkplain
   * Policy#awayOfferWindow() shorter window}.
   */
  void offerFirst(long now) {
    while (allowance > 0 && waitingCount > 0 && gate.tryAcquire()) {
      offer(index.first(), now);
    }
  }

  /** Turns waiting {@code t} ready, holding a slot already taken from the gate. */
  void offer(Ticket t, long now) {
    if (allowance != Line.UNLIMITED) {
      allowance--;
    }
    journal.record(LineJournal.OFFER, t.number, 0, 0, 0, t.away() ? LineJournal.AWAY : 0);
    dequeue(t);
    t.state = Ticket.READY;
    t.readyAt = now;
    t.told(false);
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
  static boolean lapsed(Ticket t, long now, Policy p) {
    return t.state == Ticket.READY && p.offerLapsed(now, t.readyAt, t.away());
  }

  /**
   * Ends ready {@code t}'s offer without ending the ticket: its slot is given back (the caller
   * hands it on) and it waits again at its own place, {@code away} unless its client is the one
   * calling. Returns whether its client had been told (a {@code TIMEOUT}).
   */
  boolean lapse(Ticket t, boolean away) {
    boolean told = t.told();
    unlinkReady(t);
    t.state = Ticket.WAITING;
    t.told(false);
    t.away(away);
    if (!t.promoted()) {
      // The holder of the place comes back behind whoever was promoted into it meanwhile, as it
      // stands behind every client promoted into its tie.
      Ticket last = index.before(t.band, t.place, Long.MAX_VALUE);
      if (last != null && last.sameGroup(t)) {
        t.order = counter.next();
      }
    }
    index.insert(t);
    journal.record(LineJournal.LAPSE, t.number, t.band, t.place, t.order, keyFlags(t));
    waitingCount++; // published before the slot is: the fast path sees someone waits
    gate.release();
    return told;
  }

  /**
   * For a poll or claim of {@code t}: lapses its due offer, returning {@link Outcome#TIMED_OUT} if
   * told. Its client is heard from now, so it waits present and, standing ahead of everyone it was
   * offered before, gets the slot back unless a present client ahead of it takes it.
   */
  long lapseIfDue(Ticket t, long now, Policy p) {
    if (!lapsed(t, now, p)) {
      return 0;
    }
    t.lastActivity = now; // heard from: never passed over as absent on its own call
    boolean told = lapse(t, false);
    rebalance(now);
    return told ? Outcome.TIMED_OUT : 0;
  }

  /**
   * Its client was heard from: an away waiter is passed over no more (standing ahead, it is offered
   * the next slot, at once if one is free); an offer made while away now runs its full timeout from
   * when the client is told.
   */
  void present(Ticket t, long now) {
    t.lastActivity = now; // heard from: never passed over as absent on its own call
    journal.record(LineJournal.PRESENT, t.number, 0, now, 0, 0);
    if (t.state == Ticket.READY) {
      t.away(false);
    } else {
      index.setAway(t, false);
      rebalance(now);
    }
  }

  /** Turns a ready ticket's reserved slot into an admission: the ticket ends here. */
  void admitReady(Ticket t) {
    journal.record(LineJournal.ADMIT, t.number, 0, 0, 0, 0);
    tokens.remove(t);
    unlinkReady(t);
    t.state = Ticket.GONE;
    inFlight.incrementAndGet();
  }

  /**
   * Makes {@code j} this line's journal and tells it what the line holds: every ready and waiting
   * ticket as held, the capacity and the allowance.
   */
  void attach(LineJournal j) {
    journal = j;
    for (Ticket r = readyHead; r != null; r = r.right) {
      held(r, LineJournal.READY);
    }
    journalWaiting();
    j.record(LineJournal.CAPACITY, 0, 0, gate.capacity(), 0, 0);
    j.record(LineJournal.ALLOWANCE, 0, 0, allowance, 0, 0);
  }

  /** Journals every waiting ticket as held: after a restore or with a new journal. */
  void journalWaiting() {
    index.forEach(Integer.MAX_VALUE, t -> held(t, 0));
  }

  private void held(Ticket t, long ready) {
    journal.record(LineJournal.HELD, t.number, t.band, t.place, t.order, keyFlags(t) | ready);
  }

  /** {@code t}'s key flags for the journal. */
  static long keyFlags(Ticket t) {
    return (t.promoted() ? LineJournal.TIED : 0) | (t.away() ? LineJournal.AWAY : 0);
  }

  /** Journals {@code t}'s new key. */
  void moved(Ticket t, long why) {
    journal.record(LineJournal.MOVE, t.number, t.band, t.place, t.order, keyFlags(t) | why);
  }

  /** Takes ready {@code t} off the ready list; its slot stays taken until the caller frees it. */
  void unlinkReady(Ticket t) {
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

  /**
   * Checks the window's invariants against the gate, the index and the token store.
   *
   * @throws IllegalStateException naming the first invariant that does not hold
   */
  void checkInvariants() {
    long ready = 0;
    for (Ticket r = readyHead; r != null; r = r.right) {
      require(r.state == Ticket.READY, "ready list holds a ticket that is not READY");
      require(tokens.get(r.hi, r.lo) == r, "a ready ticket is missing from the token store");
      ready++;
    }
    require(ready == readyCount, "ready count " + readyCount + " != ready list " + ready);
    index.checkStructure();
    require(index.size() == waitingCount, "index " + index.size() + " != waiting " + waitingCount);
    require(tokens.size() == waitingCount + readyCount, "token store size mismatch");
    String table = tokens.check();
    require(table == null, "token store broken: " + table);
    for (Ticket r = readyHead; r != null; r = r.right) {
      require(!(r.away() && r.told()), "a ready ticket is away although its client was told");
    }
    long[] present = {0};
    index.forEach(
        Integer.MAX_VALUE,
        t -> {
          require(t.state == Ticket.WAITING && tokens.get(t.hi, t.lo) == t, "bad waiter");
          present[0] += t.away() ? 0 : 1;
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
    bucket.checkInvariants(allowance, this.held);
    require(inFlight.get() >= 0, "negative in-flight");
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("line invariant broken: " + what);
    }
  }
}
