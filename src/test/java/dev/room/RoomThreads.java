package dev.room;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * For tests of what a room leaves running: its threads, a handler that is slow to return, and its
 * events delivered.
 */
public final class RoomThreads {
  private RoomThreads() {}

  /** Every live thread now. */
  public static Set<Thread> now() {
    return Thread.getAllStackTraces().keySet();
  }

  /** The threads named {@code room-*} that are not in {@code before}. */
  public static List<Thread> startedSince(Set<Thread> before) {
    return now().stream()
        .filter(t -> !before.contains(t) && t.getName().startsWith("room-"))
        .toList();
  }

  /**
   * An event handler that takes a while and ignores interrupts, as user code may: it spins (no
   * sleep: it stands for work) for 300 ms after counting {@code started} down.
   */
  public static void busyHandler(CountDownLatch started) {
    started.countDown();
    long end = System.nanoTime() + 300_000_000L;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  /** Waits, bounded, for {@code latch}. */
  public static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS), "the handler ran");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** Waits, bounded, until {@code room} has handed every event fired so far to its handlers. */
  public static void awaitEvents(WaitingRoom room) {
    try {
      assertTrue(room.events().awaitIdle(10_000), "the room's events were delivered");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
