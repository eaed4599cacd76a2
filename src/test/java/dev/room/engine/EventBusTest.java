package dev.room.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Event;
import dev.room.Snapshot;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventBusTest {
  private static final Snapshot QUEUED = new Snapshot(Event.QUEUE, 1, 1, 1, "", "", false);

  /**
   * The worker used to take an event off the queue and only then mark itself delivering: an
   * awaitIdle between the two saw an empty queue and an idle worker, and returned before the
   * handler ran (SessionAccountingTest counted three ends of four).
   */
  @Test
  void awaitIdleWaitsForAnEventTakenButNotYetDelivered() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          try (EventBus bus = new EventBus("test")) {
            AtomicInteger delivered = new AtomicInteger();
            bus.on(Event.QUEUE, s -> delivered.incrementAndGet());
            for (int i = 1; i <= 50_000; i++) {
              bus.publish(QUEUED);
              assertTrue(bus.awaitIdle(5000));
              assertEquals(i, delivered.get(), "delivered after awaitIdle, event " + i);
            }
          }
        });
  }

  @Test
  void awaitIdleWaitsForEveryEventPublishedFromManyThreads() throws Exception {
    try (EventBus bus = new EventBus("test")) {
      AtomicInteger delivered = new AtomicInteger();
      bus.on(Event.QUEUE, s -> delivered.incrementAndGet());
      Thread[] threads = new Thread[4];
      for (int t = 0; t < threads.length; t++) {
        threads[t] =
            new Thread(
                () -> {
                  for (int i = 0; i < 1000; i++) {
                    bus.publish(QUEUED);
                  }
                });
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      assertTrue(bus.awaitIdle(10_000));
      assertEquals(4000, delivered.get());
      assertEquals(0, bus.dropped());
    }
  }
}
