package dev.room.redis;

import static dev.room.redis.Fleet.position;
import static dev.room.redis.Fleet.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Browser;
import dev.room.redis.Fleet.Instance;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failures of a fleet on one Redis room: an instance killed with requests in flight, and Redis
 * itself stopped and started again (AOF on). Lease time runs on the fake clock.
 */
class FleetFailureTest {
  private RedisServer redis;
  private Fleet fleet;

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    if (fleet != null) {
      fleet.close();
    }
    redis.close();
  }

  @Test
  void aKilledInstancesSlotsReturnWithinTheLeaseTtlAndNobodyElseMoves() throws Exception {
    fleet = new Fleet(redis.uri(), "sale-" + UUID.randomUUID(), 3, 3, 7L);
    Instance doomed = fleet.instances.get(0);
    Instance survivor = fleet.instances.get(1);
    List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
    running.add(enter(new Browser(), doomed, "d1"));
    running.add(enter(new Browser(), doomed, "d2"));
    fleet.app.awaitParked(2);
    running.add(enter(new Browser(), survivor, "s1"));
    fleet.app.awaitParked(3);
    List<Browser> line = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      Browser b = new Browser();
      b.get(fleet.instances.get(1 + i % 2).url("/app?who=w" + i));
      line.add(b);
    }

    fleet.kill(0);
    fleet.advance(Fleet.LEASE.minusMillis(1));
    for (int i = 0; i < 4; i++) {
      assertEquals(i + 1, position(status(line.get(i), fleet.any())), "held until the TTL");
    }

    fleet.advance(Duration.ofMillis(1));
    assertEquals(0, position(status(line.get(0), fleet.any())), "w1 got a returned slot");
    assertEquals(0, position(status(line.get(1), fleet.any())), "w2 got the other");
    assertEquals(1, position(status(line.get(2), fleet.any())), "w3 only moved up");
    assertEquals(2, position(status(line.get(3), fleet.any())));
    assertEquals(4, survivor.room.liveQueueDepth(), "nobody lost a ticket");
    assertEquals(1, survivor.room.inFlight(), "only the survivor's request holds a slot");

    running.add(enter(line.get(0), fleet.any(), "w1"));
    running.add(enter(line.get(1), fleet.any(), "w2"));
    fleet.app.awaitParked(3);
    assertTrue(fleet.app.running.get() <= 3);
    while (fleet.app.parkedCount() > 0) {
      fleet.app.releaseOne();
    }
    for (CompletableFuture<HttpResponse<String>> r : running.subList(2, running.size())) {
      assertEquals(200, r.get(20, TimeUnit.SECONDS).statusCode());
    }
    fleet.advance(Duration.ofMillis(1));
    assertEquals(0, survivor.room.inFlight());
    survivor.line.checkInvariants();
  }

  @Test
  void whileRedisIsDownNobodyGetsInAndAfterARestartTheLineIsIntact() throws Exception {
    fleet = new Fleet(redis.uri(), "sale-" + UUID.randomUUID(), 2, 1, 11L);
    CompletableFuture<HttpResponse<String>> holder = enter(new Browser(), fleet.any(), "h");
    fleet.app.awaitParked(1);
    List<Browser> line = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      Browser b = new Browser();
      b.get(fleet.any().url("/app?who=w" + i));
      assertEquals(i, position(status(b, fleet.any())));
      line.add(b);
    }

    redis.stop();
    HttpResponse<String> poll = status(line.get(0), fleet.any());
    assertEquals(503, poll.statusCode());
    assertEquals("{\"ready\":false,\"reconnecting\":true}", poll.body());
    HttpResponse<String> newcomer = new Browser().get(fleet.any().url("/app?who=late"));
    assertEquals(503, newcomer.statusCode());
    assertTrue(newcomer.headers().firstValue("Retry-After").isPresent());
    fleet.app.releaseOne(); // the holder finishes; its release cannot reach Redis
    assertEquals(200, holder.get(20, TimeUnit.SECONDS).statusCode());
    HttpResponse<String> comeBack = line.get(0).get(fleet.any().url("/app?who=w1"));
    assertEquals(503, comeBack.statusCode(), "no admission while Redis is down");
    assertEquals(1, fleet.app.admitted.size());

    redis.restart();
    for (Instance i : fleet.instances) {
      RedisLeaseTest.awaitReconnect(i.line);
    }
    assertEquals(0, position(status(line.get(0), fleet.any())), "the lost release came back");
    assertEquals(1, position(status(line.get(1), fleet.any())), "the line survived the restart");
    assertEquals(2, position(status(line.get(2), fleet.any())));
    CompletableFuture<HttpResponse<String>> w1 = enter(line.get(0), fleet.any(), "w1");
    fleet.app.awaitParked(1);
    fleet.app.releaseOne();
    assertEquals("app:w1", w1.get(20, TimeUnit.SECONDS).body());
    fleet.advance(Duration.ofMillis(1));
    fleet.instances.get(1).line.checkInvariants();
  }

  @Test
  void aRedisRestartWithoutPersistenceFreezesTheFleet() throws Exception {
    fleet = new Fleet(redis.uri(), "sale-" + UUID.randomUUID(), 2, 2, 13L);
    fleet.advance(Duration.ofMillis(1)); // both registered, as their heartbeat threads would
    List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
    running.add(enter(new Browser(), fleet.any(), "h1"));
    fleet.app.awaitParked(1); // one at a time, so h1 is the longest parked
    running.add(enter(new Browser(), fleet.any(), "h2"));
    fleet.app.awaitParked(2);
    List<Browser> line = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      Browser b = new Browser();
      b.get(fleet.any().url("/app?who=w" + i));
      assertEquals(i, position(status(b, fleet.any())));
      line.add(b);
    }

    redis.stop();
    redis.restartEmpty(); // no persistence: the line, the leases and the capacity are gone
    for (Instance i : fleet.instances) {
      RedisLeaseTest.awaitReconnect(i.line);
    }
    fleet.advance(Duration.ofMillis(1));

    for (Instance i : fleet.instances) {
      assertEquals(2, i.room.inFlight(), "the two running requests hold their slots again");
      assertEquals(1, i.line.stateLosses(), "and each instance noticed the loss");
    }
    HttpResponse<String> poll = status(line.get(1), fleet.any());
    assertEquals(200, poll.statusCode(), "a lost place is no error: " + poll.body());
    assertEquals(200, line.get(1).get(fleet.any().url("/app?who=w2")).statusCode());
    assertEquals(200, line.get(0).get(fleet.any().url("/app?who=w1")).statusCode());
    assertEquals(1, position(status(line.get(1), fleet.any())), "w2 joined again first");
    assertEquals(2, position(status(line.get(0), fleet.any())), "w1 behind");

    fleet.app.releaseOne();
    assertEquals(200, running.get(0).get(20, TimeUnit.SECONDS).statusCode());
    fleet.advance(Duration.ofMillis(1));
    assertEquals(0, position(status(line.get(1), fleet.any())), "the room is not frozen");
    running.add(enter(line.get(1), fleet.any(), "w2"));
    fleet.app.awaitParked(2);
    assertTrue(fleet.app.running.get() <= 2);
    while (fleet.app.parkedCount() > 0) {
      fleet.app.releaseOne();
    }
    assertEquals("app:w2", running.get(2).get(20, TimeUnit.SECONDS).body());
    fleet.advance(Duration.ofMillis(1));
    fleet.instances.get(0).line.checkInvariants();
  }

  private static CompletableFuture<HttpResponse<String>> enter(
      Browser b, Instance inst, String who) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return b.get(inst.url("/app?who=" + who));
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
