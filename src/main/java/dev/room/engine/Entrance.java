package dev.room.engine;

import static dev.room.spi.Line.UNLIMITED;

import dev.room.spi.LineJournal;

/**
 * The way in: the lock-free fast path ({@link #tryEnter}, {@link #exit}) and the settings it reads
 * without the lock (capacity and allowance, written under it), kept together for the notes on their
 * races. Also the line's used flag, which the fast path sets.
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
 * <p>Lock order: the line's lock, then the gate's monitor (resize only). The fast path and {@link
 * #exit} allocate nothing.
 */
final class Entrance {
  private final Object lock;
  private final SlotGate gate;
  private final ServingWindow window;

  /** Whether anyone arrived, entered or was granted a pass: a used line refuses a restore. */
  volatile boolean used;

  /** {@code lock} is the owning line's lock. */
  Entrance(Object lock, SlotGate gate, ServingWindow window) {
    this.lock = lock;
    this.gate = gate;
    this.window = window;
  }

  void setCapacity(int capacity, long now) {
    synchronized (lock) {
      window.journal.record(LineJournal.CAPACITY, 0, 0, capacity, 0, 0);
      if (gate.resize(capacity) > 0) {
        window.rebalance(now);
      }
    }
  }

  void setAllowance(long allowance, long now) {
    if (allowance < 0) {
      throw new IllegalArgumentException("allowance must not be negative, was " + allowance);
    }
    synchronized (lock) {
      window.allowance.set(allowance, now);
    }
  }

  long replaceAllowance(long allowance, long now) {
    synchronized (lock) {
      long was = window.allowance();
      setAllowance(allowance, now);
      return was;
    }
  }

  void addAllowance(long n, long max, long now) {
    synchronized (lock) {
      window.allowance.add(n, max, now);
    }
  }

  void hold(boolean held, long now) {
    synchronized (lock) {
      window.allowance.hold(held, now);
    }
  }

  long meter(double perSecond, long burst, long now) {
    if (!(perSecond >= 0) || Double.isInfinite(perSecond) || (perSecond > 0 && burst < 1)) {
      throw new IllegalArgumentException("bad rate " + perSecond + " or burst " + burst);
    }
    synchronized (lock) {
      return window.allowance.meter(perSecond, burst, now);
    }
  }

  long refill(long now) {
    synchronized (lock) {
      return window.allowance.refill(now);
    }
  }

  boolean tryEnter() {
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
        window.rebalance(window.allowance.changedAt());
      }
    }
  }

  void exit(long now) {
    window.leave();
    if (window.waiting() != 0) {
      synchronized (lock) {
        window.rebalance(now);
      }
    }
  }
}
