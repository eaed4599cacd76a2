package dev.room.redis;

import static dev.room.redis.Fleet.position;
import static dev.room.redis.Fleet.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Browser;
import dev.room.metrics.RoomMetrics;
import dev.room.redis.Fleet.Instance;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis lost the room (a restart without persistence), seen over HTTP by the visitors who were
 * waiting and by the operator: no "your place is kept", a new arrival on the next visit in the
 * order visitors come back, one log line per instance and a metric.
 */
class RedisLostRoomHttpTest {
  private static final String LOST = "Redis lost the room's state";
  private RedisServer redis;
  private Fleet fleet;

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() throws Exception {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    if (fleet != null) {
      while (fleet.app.parkedCount() > 0) {
        fleet.app.releaseOne();
      }
      fleet.close();
    }
    redis.close();
  }

  @Test
  void aWaitingVisitorsNextPollAfterRedisLostTheRoomJoinsAgainAsANewArrival() throws Exception {
    fleet = new Fleet(redis.uri(), "lost-" + UUID.randomUUID(), 2, 1, 5L);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new RoomMetrics(fleet.instances.get(0).room).bindTo(registry);
    fleet.advance(Duration.ofMillis(1)); // both registered, as their heartbeat threads would
    CompletableFuture<HttpResponse<String>> holder = enter(new Browser(), fleet.any(), "h");
    fleet.app.awaitParked(1);
    Browser v = new Browser();
    Browser w = new Browser();
    v.get(fleet.any().url("/app?who=v"));
    w.get(fleet.any().url("/app?who=w"));
    assertEquals(1, position(status(v, fleet.any())));
    assertEquals(2, position(status(w, fleet.any())));
    String wTicket = w.cookie("room_ticket");
    assertNotNull(wTicket);
    assertEquals(0.0, registry.get(RoomMetrics.STATE_LOSSES).functionCounter().count());

    redis.stop();
    redis.restartEmpty();
    String log =
        stderrOf(
            () -> {
              for (Instance i : fleet.instances) {
                RedisLeaseTest.awaitReconnect(i.line);
              }
              fleet.advance(Duration.ofMillis(1));
            });
    assertEquals(2, count(log, LOST), "one line per instance, not per request: " + log);
    assertTrue(log.contains("joins again as a new arrival"), log);
    for (Instance i : fleet.instances) {
      assertEquals(1, i.room.stateLosses(), "instance " + i.n);
    }
    assertEquals(1.0, registry.get(RoomMetrics.STATE_LOSSES).functionCounter().count());

    HttpResponse<String> poll = status(w, fleet.any()); // w comes back first
    assertEquals(200, poll.statusCode());
    assertEquals("{\"ready\":true}", poll.body(), "no place is kept: the page goes on to the site");
    HttpResponse<String> rejoin = w.get(fleet.any().url("/app?who=w"));
    assertEquals(200, rejoin.statusCode(), rejoin.body());
    assertNotEquals(wTicket, w.cookie("room_ticket"), "a new ticket: a new arrival");
    assertEquals(1, position(status(w, fleet.any())), "first back, first in the new line");
    assertEquals(0, position(status(v, fleet.any())), "v's place went with the line");
    v.get(fleet.any().url("/app?who=v"));
    assertEquals(2, position(status(v, fleet.any())), "v came back second");
    assertEquals(1, position(status(w, fleet.any())));

    fleet.app.releaseOne();
    assertEquals(200, holder.get(20, TimeUnit.SECONDS).statusCode());
    fleet.advance(Duration.ofMillis(1));
    assertEquals(0, position(status(w, fleet.any())), "the slot goes to the new line's first");
    fleet.instances.get(0).line.checkInvariants();
  }

  interface Step {
    void run() throws Exception;
  }

  /** What the instances log (slf4j-simple writes to System.err) while {@code r} runs. */
  private static String stderrOf(Step r) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  private static int count(String haystack, String needle) {
    int n = 0;
    for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
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
