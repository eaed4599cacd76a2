package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Browser;
import dev.room.Event;
import dev.room.FakeClock;
import dev.room.JettyHarness;
import dev.room.Snapshot;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (found by {@link ThreeJvmFleetTest}): an event's snapshot carries the occupancy,
 * {@code inFlight()}, which subtracts the sessions the store counts, and the Redis session store
 * counted them with a Redis call that failed while Redis was down (in REQUESTS mode too). So with a
 * handler on {@code ENTER}, {@code EXIT}, {@code FULL} or {@code DRAIN}, a Redis outage turned a
 * response the application had written into a 500 as its slot was given back, and a visitor a
 * fail-open room let in into a 503 before the application ran. The count now stays at the last one
 * seen while Redis is down, as the line's counters do.
 */
class RedisOutageEventsTest {
  private final FakeClock clock = new FakeClock();
  private final SharedApp app = new SharedApp();
  private final List<Snapshot> seen = new CopyOnWriteArrayList<>();
  private RedisServer redis;
  private WaitingRoom room;
  private JettyHarness jetty;

  @BeforeEach
  void startRedis() throws IOException {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    if (jetty != null) {
      jetty.close();
      room.close();
    }
    redis.close();
  }

  private RedisLine start(boolean failOpen, int capacity) throws Exception {
    RedisLine line =
        RedisLine.builder(redis.uri(), "events-" + UUID.randomUUID())
            .clock(clock)
            .failOpen(failOpen)
            .manualHeartbeat()
            .build();
    room = WaitingRoom.builder().capacity(capacity).clock(clock).line(line).build();
    for (Event e : List.of(Event.ENTER, Event.EXIT, Event.FULL, Event.DRAIN)) {
      room.on(e, seen::add);
    }
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(app.servlet(0), "/*");
    jetty.start();
    return line;
  }

  private CompletableFuture<HttpResponse<String>> enter(String who) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return new Browser().get(jetty.url("/app?who=" + who));
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /**
   * Waits (bounded) until {@code e} was delivered {@code n} times: handlers run on their own
   * thread.
   */
  private void fired(Event e, int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (seen.stream().filter(s -> s.event() == e).count() < n) {
      assertTrue(System.nanoTime() < deadline, e + " not delivered: " + seen);
      Thread.onSpinWait();
    }
  }

  @Test
  void aRequestFinishingWhileRedisIsDownIsAnsweredWithAnEventHandlerOnItsExit() throws Exception {
    start(false, 1);
    CompletableFuture<HttpResponse<String>> h = enter("h");
    app.awaitParked(1);
    fired(Event.ENTER, 1);
    fired(Event.FULL, 1);

    redis.stop();
    app.releaseOne(); // the app answers; the slot's release cannot reach Redis
    HttpResponse<String> r = h.get(30, TimeUnit.SECONDS);
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("app:h", r.body());
    fired(Event.EXIT, 1); // the exit still fires
  }

  @Test
  void aFailOpenRoomLetsAVisitorInWhileRedisIsDownWithAnEventHandlerOnItsEntry() throws Exception {
    RedisLine line = start(true, 2);
    redis.stop();
    CompletableFuture<HttpResponse<String>> v = enter("v");
    app.awaitParked(1);
    fired(Event.ENTER, 1); // let in, and its entry fires
    app.releaseOne();
    HttpResponse<String> r = v.get(30, TimeUnit.SECONDS);
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("app:v", r.body());
    fired(Event.EXIT, 1);
    assertEquals(0, line.inFlight(), "its slot was given back");
  }
}
