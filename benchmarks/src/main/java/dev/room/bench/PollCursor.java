package dev.room.bench;

import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Where one benchmark thread is in a shared polling order. Threads start far apart so that two
 * threads rarely poll the same client at once.
 */
@State(Scope.Thread)
public class PollCursor {
  private int next;

  @Setup
  public void start(ThreadParams threads) {
    next = threads.getThreadIndex() * 7_919;
  }

  /** The next place in a polling order of {@code n} clients, wrapping at the end. */
  int next(int n) {
    int k = next;
    if (k >= n) {
      k = 0;
    }
    next = k + 1;
    return k;
  }

  /** The index of the next client to poll, wrapping at the end of {@code order}. */
  int take(int[] order) {
    int k = next;
    if (k >= order.length) {
      k = 0;
    }
    next = k + 1;
    return order[k];
  }
}
