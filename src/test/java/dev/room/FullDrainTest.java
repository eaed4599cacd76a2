package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** FULL and DRAIN are edges: they alternate, FULL first, whatever the interleaving. */
class FullDrainTest {
  private static final int THREADS = 4;
  private static final int ROUNDS = 5000;

  /**
   * Regression: the full flag was a volatile check-then-set, so with four threads entering and
   * leaving a room of two, events of one kind arrived back to back about 1% of the time.
   */
  @Test
  void fullAndDrainAreEdgesUnderConcurrency() throws Exception {
    List<Event> seen = new ArrayList<>(); // written by the one event thread only
    try (WaitingRoom room = WaitingRoom.create(2)) {
      room.on(Event.FULL, s -> seen.add(Event.FULL));
      room.on(Event.DRAIN, s -> seen.add(Event.DRAIN));
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
          runs.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int r = 0; r < ROUNDS; r++) {
                      if (room.tryEnter()) {
                        room.exit();
                      }
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> f : runs) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertTrue(room.events().awaitIdle(10_000));
      assertEquals(0, room.events().dropped(), "every edge delivered");
      // awaitIdle returned: the event thread's writes to seen happened before it
      for (int i = 0; i < seen.size(); i++) {
        Event want = i % 2 == 0 ? Event.FULL : Event.DRAIN;
        assertEquals(want, seen.get(i), "event " + i + " of " + seen.size());
      }
      assertEquals(0, seen.size() % 2, "everyone left: the last edge is a DRAIN");
    }
  }
}
