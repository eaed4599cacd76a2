package dev.room.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Browser;
import dev.room.Event;
import dev.room.FakeClock;
import dev.room.JettyHarness;
import dev.room.ParkingServlet;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The binder's gauges and counters against a real room behind a real Jetty. */
class RoomMetricsTest {
  private final FakeClock clock = new FakeClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private WaitingRoom room;
  private JettyHarness jetty;
  private ParkingServlet app;

  @BeforeEach
  void start() throws Exception {
    room = WaitingRoom.builder().capacity(1).clock(clock).build();
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    app = new ParkingServlet();
    jetty.servlet(app, "/*");
    jetty.start();
  }

  @AfterEach
  void stop() {
    jetty.close();
    room.close();
  }

  @Test
  void gaugesFollowTheRoom() throws Exception {
    new RoomMetrics(room).bindTo(registry);
    assertEquals(1, gauge(RoomMetrics.CAPACITY));
    assertEquals(0, gauge(RoomMetrics.IN_FLIGHT));
    assertEquals(0, gauge(RoomMetrics.UTILIZATION));

    CompletableFuture<HttpResponse<String>> holder = holdTheSlot();
    assertEquals(1, gauge(RoomMetrics.IN_FLIGHT));
    assertEquals(1.0, gauge(RoomMetrics.UTILIZATION));

    Browser b = queued();
    Browser c = queued();
    assertEquals(2, gauge(RoomMetrics.QUEUE_DEPTH));
    assertEquals(2, gauge(RoomMetrics.LIVE_QUEUE_DEPTH));

    room.setCapacity(2); // b is told it is ready: it still holds a ticket, but waits no more
    assertEquals(2, gauge(RoomMetrics.CAPACITY));
    assertEquals(1, gauge(RoomMetrics.QUEUE_DEPTH));
    assertEquals(2, gauge(RoomMetrics.LIVE_QUEUE_DEPTH));
    assertEquals(0.5, gauge(RoomMetrics.UTILIZATION));

    assertTrue(room.removeToken(c.cookie("room_ticket")));
    assertEquals(0, gauge(RoomMetrics.QUEUE_DEPTH));
    assertEquals(1, gauge(RoomMetrics.LIVE_QUEUE_DEPTH));

    app.releaseOne();
    assertEquals(200, holder.join().statusCode());
    await(() -> gauge(RoomMetrics.IN_FLIGHT) == 0, "the slot is given back after the response");
    assertNotNull(b.cookie("room_ticket"));
  }

  @Test
  void countsEveryEvent() throws Exception {
    new RoomMetrics(room).bindTo(registry);
    assertEquals(
        Event.values().length, registry.find(RoomMetrics.EVENTS).counters().size(), "one each");

    CompletableFuture<HttpResponse<String>> holder = holdTheSlot();
    Browser b = queued();
    queued();
    assertTrue(room.removeToken(b.cookie("room_ticket")));
    app.releaseOne();
    holder.join();

    awaitCount(Event.ENTER, 1);
    awaitCount(Event.FULL, 1);
    awaitCount(Event.QUEUE, 2);
    awaitCount(Event.REMOVE, 1);
    awaitCount(Event.EXIT, 1);
    assertEquals(0, count(Event.EVICT));
    assertEquals(0, count(Event.PROMOTE));
  }

  @Test
  void applicationHandlersRunAlongsideTheBinder() throws Exception {
    AtomicInteger before = new AtomicInteger();
    AtomicInteger after = new AtomicInteger();
    room.on(Event.QUEUE, s -> before.incrementAndGet());
    new RoomMetrics(room).bindTo(registry);
    room.on(Event.QUEUE, s -> after.incrementAndGet());

    CompletableFuture<HttpResponse<String>> holder = holdTheSlot();
    queued();
    awaitCount(Event.QUEUE, 1);
    await(() -> before.get() == 1 && after.get() == 1, "both application handlers ran");

    room.off(Event.QUEUE); // removes every handler for the event, the binder's too
    queued();
    assertEquals(2, room.queueDepth());
    app.releaseOne();
    holder.join();
    awaitCount(Event.EXIT, 1); // events are delivered in order: nothing for QUEUE is pending
    assertEquals(1, count(Event.QUEUE));
    assertEquals(1, before.get());
  }

  @Test
  void tagsGoOnEveryMeter() {
    new RoomMetrics(room, Tags.of("room", "checkout")).bindTo(registry);
    room.setCapacity(7);
    assertEquals(7, registry.get(RoomMetrics.CAPACITY).tag("room", "checkout").gauge().value());
    assertEquals(
        Event.values().length,
        registry.get(RoomMetrics.EVENTS).tag("room", "checkout").counters().size());
  }

  @Test
  void theModeShowsAsAStateSetSoAGateSwitchedOffIsVisible() throws Exception {
    new RoomMetrics(room).bindTo(registry);
    assertEquals(1, registry.get(RoomMetrics.MODE).tag("mode", "open").gauge().value());
    assertEquals(0, registry.get(RoomMetrics.MODE).tag("mode", "passthrough").gauge().value());
    assertEquals(RoomMode.values().length, registry.find(RoomMetrics.MODE).gauges().size());
    room.setMode(RoomMode.PASSTHROUGH);
    assertEquals(0, registry.get(RoomMetrics.MODE).tag("mode", "open").gauge().value());
    assertEquals(1, registry.get(RoomMetrics.MODE).tag("mode", "passthrough").gauge().value());
    awaitCount(Event.MODE, 1);
    assertTrue(Double.isNaN(gauge(RoomMetrics.ADMISSION_RATE)), "held: no measured rate");
    room.setMode(RoomMode.OPEN);
  }

  // ── helpers ────────────────────────────────────────────────────────────

  private CompletableFuture<HttpResponse<String>> holdTheSlot() throws InterruptedException {
    Browser a = new Browser();
    CompletableFuture<HttpResponse<String>> f =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return a.get(jetty.url("/"));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    app.awaitParked(1);
    return f;
  }

  private Browser queued() throws Exception {
    Browser b = new Browser();
    HttpResponse<String> page = b.get(jetty.url("/"));
    assertEquals(200, page.statusCode());
    assertNotNull(b.cookie("room_ticket"), "queued with a ticket");
    return b;
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  private double count(Event e) {
    return registry
        .get(RoomMetrics.EVENTS)
        .tag("event", e.name().toLowerCase(Locale.ROOT))
        .counter()
        .count();
  }

  private void awaitCount(Event e, double n) {
    await(() -> count(e) >= n, e + " counted " + n + " times");
    assertEquals(n, count(e), e.toString());
  }

  /** Polls {@code condition} for up to ten seconds: event delivery is asynchronous. */
  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }
  }
}
