package dev.room.engine;

import java.util.concurrent.Semaphore;

/**
 * The hard concurrency limit: a {@link Semaphore} with one permit per free slot.
 *
 * <p>Resizing never blocks: growing releases permits, shrinking reduces them (possibly below zero),
 * so requests already holding slots finish normally and the gate simply stays closed until enough
 * of them have left. Resizes are serialised so two concurrent resizes cannot lose a delta.
 */
final class SlotGate {
  private final ResizableSemaphore permits;
  private int capacity;

  SlotGate(int capacity) {
    this.capacity = capacity;
    this.permits = new ResizableSemaphore(capacity);
  }

  boolean tryAcquire() {
    return permits.tryAcquire();
  }

  void release() {
    permits.release();
  }

  /** Free permits now; negative after a shrink while slots were held. */
  int available() {
    return permits.availablePermits();
  }

  synchronized int capacity() {
    return capacity;
  }

  /** Sets the capacity; returns the change in permits. */
  synchronized int resize(int newCapacity) {
    int delta = newCapacity - capacity;
    capacity = newCapacity;
    if (delta > 0) {
      permits.release(delta);
    } else if (delta < 0) {
      permits.reduce(-delta);
    }
    return delta;
  }

  /** Exposes the protected {@link Semaphore#reducePermits}. */
  private static final class ResizableSemaphore extends Semaphore {
    private static final long serialVersionUID = 1L;

    ResizableSemaphore(int permits) {
      super(permits);
    }

    void reduce(int n) {
      reducePermits(n);
    }
  }
}
