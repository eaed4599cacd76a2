package dev.room.redis;

import static dev.room.redis.Fleet.position;
import static dev.room.redis.Fleet.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three embedded Jetty instances serving one Redis room, with browsers that hit a random instance
 * on every request: one global capacity (counted by the shared application, not the room), one
 * ticket order, the same positions from every instance, and admin moves made on one instance seen
 * by all.
 */
class MultiInstanceTest {
  private static final int CAPACITY = 3;

  private RedisServer redis;
  private Fleet fleet;

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
    fleet = new Fleet(redis.uri(), "sale-" + UUID.randomUUID(), 3, CAPACITY, 20261129L);
  }

  @AfterEach
  void stop() throws IOException {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    fleet.close();
    redis.close();
  }

  @Test
  void oneLineAcrossThreeInstances() throws Exception {
    // Three holders take every slot, each on some instance.
    List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
    for (int i = 0; i < CAPACITY; i++) {
      running.add(enter(new Browser(), fleet.any(), "holder" + i));
    }
    fleet.app.awaitParked(CAPACITY);

    // Nine arrivals, each at a random instance, are given places 1..9 in arrival order.
    List<Browser> line = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      Browser b = new Browser();
      HttpResponse<String> page = b.get(fleet.any().url("/app?who=w" + i));
      assertEquals(200, page.statusCode());
      assertTrue(page.body().contains("aria-live"), "the waiting page");
      assertNotNull(b.cookie("room_ticket"));
      assertEquals(i, position(status(b, fleet.any())));
      line.add(b);
    }

    // Every instance reports the same position for every browser.
    fleet.advance(Duration.ofMillis(1100));
    for (Instance inst : fleet.instances) {
      for (int i = 0; i < line.size(); i++) {
        assertEquals(i + 1, position(status(line.get(i), inst)), "w" + (i + 1) + " on " + inst.n);
      }
      fleet.advance(Duration.ofMillis(1100));
    }

    // A removal made on instance 0 and a promotion made on instance 1 are seen by instance 2.
    assertTrue(fleet.instances.get(0).room.removeToken(line.get(2).cookie("room_ticket")));
    fleet.instances.get(1).room.adminPromote(line.get(7).cookie("room_ticket"), 1);
    Instance other = fleet.instances.get(2);
    long[] expected = {1, 2, -1, 3, 4, 5, 6, 1, 7};
    for (int i = 0; i < line.size(); i++) {
      if (expected[i] > 0) {
        assertEquals(expected[i], position(status(line.get(i), other)), "w" + (i + 1));
      }
    }
    assertEquals(8, other.room.queueDepth());
    assertEquals(8, fleet.instances.get(0).room.queue(100).size());

    // Slots free one at a time; whoever is next is told so by any instance and gets in on any.
    // w8, promoted into w1's place, is called before w1, who held it.
    List<String> order = List.of("w8", "w1", "w2", "w4", "w5", "w6", "w7", "w9");
    List<Integer> left = new ArrayList<>(List.of(7, 0, 1, 3, 4, 5, 6, 8));
    for (String who : order) {
      assertNotNull(fleet.app.releaseOne());
      fleet.advance(Duration.ofMillis(1100));
      int next = nextReady(line, left);
      assertEquals(who, "w" + (next + 1), "admission follows the line");
      left.remove(Integer.valueOf(next));
      running.add(enter(line.get(next), fleet.any(), who));
      fleet.app.awaitParked(CAPACITY);
      assertTrue(fleet.app.running.get() <= CAPACITY);
    }
    while (fleet.app.parkedCount() > 0) {
      fleet.app.releaseOne();
    }
    for (CompletableFuture<HttpResponse<String>> r : running) {
      assertEquals(200, r.get(20, TimeUnit.SECONDS).statusCode());
    }
    List<String> admitted = fleet.app.admitted;
    assertEquals(order, admitted.subList(CAPACITY, admitted.size()));
    assertTrue(fleet.app.maxRunning.get() <= CAPACITY, "max running " + fleet.app.maxRunning);
    fleet.advance(Duration.ofMillis(10));
    assertEquals(0, fleet.instances.get(1).room.inFlight());
    assertEquals(0, fleet.instances.get(2).room.liveQueueDepth());
    fleet.instances.get(0).line.checkInvariants();
  }

  @Test
  void concurrentBrowsersOnRandomInstancesNeverExceedTheGlobalCapacity() throws Exception {
    int browsers = 24;
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(browsers + 1);
    Future<?> releaser =
        pool.submit(
            () -> {
              while (!done.get()) {
                if (fleet.app.parkedCount() > 0) {
                  fleet.app.releaseOne();
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
              }
              return null;
            });
    List<Future<?>> visits = new ArrayList<>();
    for (int i = 0; i < browsers; i++) {
      String who = "b" + i;
      visits.add(pool.submit(() -> visit(new Browser(), who)));
    }
    for (Future<?> v : visits) {
      v.get(90, TimeUnit.SECONDS);
    }
    done.set(true);
    releaser.get(10, TimeUnit.SECONDS);
    pool.shutdown();
    assertEquals(browsers, fleet.app.admitted.size(), "everyone got in exactly once");
    assertTrue(fleet.app.maxRunning.get() <= CAPACITY, "max running " + fleet.app.maxRunning);
    fleet.advance(Duration.ofMillis(10));
    assertEquals(0, fleet.instances.get(0).room.inFlight());
    assertEquals(0, fleet.instances.get(0).room.liveQueueDepth());
    fleet.instances.get(2).line.checkInvariants();
  }

  /**
   * The one browser in {@code left} that any instance reports ready (bounded wait for the exit).
   */
  private int nextReady(List<Browser> line, List<Integer> left) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      int next = -1;
      for (int i : left) {
        if (position(status(line.get(i), fleet.any())) == 0) {
          assertEquals(-1, next, "only one client is ready at a time");
          next = i;
        }
      }
      if (next >= 0) {
        return next;
      }
      assertTrue(System.nanoTime() < deadline, "nobody became ready");
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // the released request is finishing
    }
  }

  /** One browser's visit: arrive anywhere, poll anywhere until ready, come back anywhere. */
  private Void visit(Browser b, String who) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(80);
    while (System.nanoTime() < deadline) {
      HttpResponse<String> r = b.get(fleet.any().url("/app?who=" + who));
      if (r.body().equals("app:" + who)) {
        return null;
      }
      assertEquals(200, r.statusCode(), r.body());
      while (position(status(b, fleet.any())) != 0) {
        assertTrue(System.nanoTime() < deadline, who + " never became ready");
        LockSupport.parkNanos(
            TimeUnit.MILLISECONDS.toNanos(1 + ThreadLocalRandom.current().nextInt(5)));
      }
    }
    throw new AssertionError(who + " never got in");
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
