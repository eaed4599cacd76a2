package dev.room.engine;

import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The serving window: who may enter. It holds the {@link ReadyList} (tickets each holding one
 * reserved slot), the waiting count, the {@link Allowance} and the in-flight count, and hands free
 * slots to the first <em>present</em> waiters ({@link #rebalance}), offers, lapses offers and
 * admits.
 *
 * <p>Presence (a waiting ticket is present or away): see {@link Absence}.
 *
 * <p>The counts and the allowance are volatile: the fast path reads them without the lock. Every
 * other method is called with the owning line's lock held; a path that queues a ticket publishes
 * the new waiting count before a slot it frees, so the lock-free fast path sees that someone waits.
 */
final class ServingWindow {
  private final SlotGate gate;
  private final LineIndex index;
  private final TokenStore tokens;
  private final TicketCounter counter;
  private final AtomicInteger inFlight = new AtomicInteger();

  private final ReadyList readyList = new ReadyList();
  private volatile long waitingCount;

  /** The allowance, its hold and its rate; the line's settings reach it through here. */
  final Allowance allowance = new Allowance(this);

  /** Who is passed over as absent (issue 16: keep the origin busy). */
  final Absence absence;

  /** The admission log's view of the line; guarded by the line's lock like the rest. */
  LineJournal journal = LineJournal.NONE;

  ServingWindow(SlotGate gate, LineIndex index, TokenStore tokens, TicketCounter counter) {
    this.gate = gate;
    this.index = index;
    this.tokens = tokens;
    this.counter = counter;
    this.absence = new Absence(this, index);
  }

  long waiting() {
    return waitingCount;
  }

  long ready() {
    return readyList.count();
  }

  int inFlight() {
    return inFlight.get();
  }

  long allowance() {
    return allowance.value();
  }

  /** The first ready ticket (the rest follow through {@link Ticket#right}), or null. */
  Ticket firstReady() {
    return readyList.first();
  }

  /** Counts in an admission whose slot was just taken, using one of a limited allowance. */
  void enterMetered() {
    allowance.take();
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
   * for the presence window is passed over on the way ({@link Absence#passOver}).
   */
  void rebalance(long now) {
    while (allowance.value() > 0 && index.present() > 0 && gate.available() > 0) {
      Ticket t = index.firstPresent();
      if (absence.passOver(t, now)) {
        continue;
      }
      if (!gate.tryAcquire()) {
        break; // the lock-free fast path took the slot meanwhile
      }
      offer(t, now);
    }
  }

  /**
   * After an import: nothing is in flight and nobody has polled yet, so the first in line are
   * offered the free slots, away or not; an offer to an away client lapses after the {@linkplain
   * Policy#awayOfferWindow() shorter window}.
   */
  void offerFirst(long now) {
    while (allowance.value() > 0 && waitingCount > 0 && gate.tryAcquire()) {
      offer(index.first(), now);
    }
  }

  /** Turns waiting {@code t} ready, holding a slot already taken from the gate. */
  void offer(Ticket t, long now) {
    allowance.take();
    journal.record(LineJournal.OFFER, t.number, 0, 0, 0, t.away() ? LineJournal.AWAY : 0);
    dequeue(t);
    t.state(Ticket.READY);
    t.readyAt(now);
    t.told(false);
    readyList.add(t);
  }

  /** Whether ready {@code t}'s offer has lapsed. */
  static boolean lapsed(Ticket t, long now, Policy p) {
    return t.state() == Ticket.READY && p.offerLapsed(now, t.readyAt(), t.away());
  }

  /**
   * Ends ready {@code t}'s offer without ending the ticket: its slot is given back (the caller
   * hands it on) and it waits again at its own place, {@code away} unless its client is the one
   * calling. Returns whether its client had been told (a {@code TIMEOUT}).
   */
  boolean lapse(Ticket t, boolean away) {
    boolean told = t.told();
    unlinkReady(t);
    t.state(Ticket.WAITING);
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
    t.lastActivity(now); // heard from: never passed over as absent on its own call
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
    t.lastActivity(now); // heard from: never passed over as absent on its own call
    journal.record(LineJournal.PRESENT, t.number, 0, now, 0, 0);
    if (t.state() == Ticket.READY) {
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
    t.end();
    inFlight.incrementAndGet();
  }

  /**
   * Makes {@code j} this line's journal and tells it what the line holds: every ready and waiting
   * ticket as held, the capacity and the allowance.
   */
  void attach(LineJournal j) {
    journal = j;
    for (Ticket r = readyList.first(); r != null; r = r.right) {
      held(r, LineJournal.READY);
    }
    journalWaiting();
    j.record(LineJournal.CAPACITY, 0, 0, gate.capacity(), 0, 0);
    j.record(LineJournal.ALLOWANCE, 0, 0, allowance.value(), 0, 0);
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
    readyList.remove(t);
  }

  /**
   * Checks the window's invariants against the gate, the index and the token store.
   *
   * @throws IllegalStateException naming the first invariant that does not hold
   */
  void checkInvariants() {
    readyList.checkInvariants(tokens);
    index.checkStructure();
    require(index.size() == waitingCount, "index " + index.size() + " != waiting " + waitingCount);
    require(tokens.size() == waitingCount + readyList.count(), "token store size mismatch");
    String table = tokens.check();
    require(table == null, "token store broken: " + table);
    for (Ticket r = readyList.first(); r != null; r = r.right) {
      require(!(r.away() && r.told()), "a ready ticket is away although its client was told");
    }
    long[] present = {0};
    index.forEach(
        Integer.MAX_VALUE,
        t -> {
          require(t.state() == Ticket.WAITING && tokens.get(t.hi(), t.lo()) == t, "bad waiter");
          present[0] += t.away() ? 0 : 1;
        });
    require(
        present[0] == index.present(), "present count " + index.present() + " != " + present[0]);
    int held = inFlight.get() + (int) readyList.count();
    require(
        gate.available() == gate.capacity() - held,
        "free slots " + gate.available() + " != capacity - held " + (gate.capacity() - held));
    require(
        index.present() == 0 || allowance.value() == 0 || gate.available() <= 0,
        "a slot is free while present clients wait and the allowance allows");
    allowance.checkInvariants();
    require(inFlight.get() >= 0, "negative in-flight");
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("line invariant broken: " + what);
    }
  }
}
