package dev.room;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a walk on one thread at a time; a walk asked for while one runs makes the walker go round
 * again, at most {@link #ROUNDS} times a call. Unbounded, a walk slower than the asks (status polls
 * ask every 50 ms while offers are out; each round re-polls held requests) kept the thread that
 * happened to walk, the one giving a finished request's slot back, going round for good: no slot
 * came back and the room stalled (the soak, on a loaded machine). An ask in the last round is left
 * to the next one: asks come again within 50 ms while it matters, and a held request times out.
 */
final class Walker {
  /** Rounds a call walks at most. */
  static final int ROUNDS = 3;

  private final AtomicBoolean walking = new AtomicBoolean();
  private volatile boolean again;

  /** Walks {@code walk} unless another thread is walking; that one then goes round once more. */
  void walk(Runnable walk) {
    again = true;
    for (int round = 0; round < ROUNDS && again && walking.compareAndSet(false, true); round++) {
      try {
        again = false;
        walk.run();
      } finally {
        walking.set(false);
      }
    }
  }
}
