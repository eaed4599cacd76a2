package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.CapacityController;
import dev.room.FakeClock;
import dev.room.RoomProbe;
import dev.room.WaitingRoom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The health-driven capacity across a fleet (issue 15): three rooms (three app instances) on one
 * Redis room, each with {@code CapacityController.adaptive}, one JVM, a fake clock. Every room
 * reports one finished request every 50 ms; the capacity they share is decided once a window, from
 * everyone's samples.
 */
class CapacityFleetTest {
  private static final long STEP = 50;
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  private final FakeClock clock = new FakeClock(1_700_000_000_000L);
  private final List<WaitingRoom> rooms = new ArrayList<>();
  private final List<Integer> capacities = new ArrayList<>();
  private long elapsed;

  @BeforeEach
  void start() {
    String id = "capacity-fleet-" + UUID.randomUUID();
    for (int i = 0; i < 3; i++) {
      RedisLine line =
          RedisLine.builder(redis.uri(), id).clock(clock).leaseTtl(Duration.ofMinutes(10)).build();
      WaitingRoom.Builder b =
          WaitingRoom.builder()
              .line(line)
              .clock(clock)
              .capacityController(CapacityController.adaptive(2, 40));
      if (i == 0) {
        b.capacity(20);
      }
      rooms.add(b.build());
    }
  }

  @AfterEach
  void stop() {
    rooms.forEach(WaitingRoom::close);
  }

  /**
   * Runs for {@code millis}: every step, room i reports a request of {@code latency(i)} ms that
   * finished now (from {@code 300·i} ms after the start: the instances' own windows would not line
   * up), then every room passes by (its view of the shared capacity is a reply old, as under
   * traffic); records the fleet's capacity after each step.
   */
  private void run(long millis, IntToLongFunction latency) {
    for (long t = 0; t < millis; t += STEP) {
      clock.advanceMillis(STEP);
      elapsed += STEP;
      long now = clock.millis();
      for (int i = 0; i < rooms.size(); i++) {
        if (elapsed > 300L * i) {
          RoomProbe.sampled(rooms.get(i), now - latency.applyAsLong(i), false);
        }
      }
      rooms.forEach(WaitingRoom::evictExpired);
      capacities.add(rooms.get(2).capacity());
    }
  }

  private int changes() {
    int n = 0;
    for (int i = 1; i < capacities.size(); i++) {
      if (!capacities.get(i).equals(capacities.get(i - 1))) {
        n++;
      }
    }
    return n;
  }

  /**
   * Regression (issue 15): each instance's controller decided alone and wrote the shared capacity,
   * so a slowdown every instance saw was cut once per instance (20 → 15 → 11 → 8 in one window).
   */
  @Test
  void aSlowdownEveryInstanceSeesIsCutOnceForTheFleet() {
    run(3000, i -> 100); // the baseline: 100 ms
    assertEquals(20, rooms.get(0).capacity());
    capacities.clear();
    run(3500, i -> 500); // five times slower, everywhere: two troubled windows, one cut
    assertEquals(15, capacities.get(capacities.size() - 1), "one cut: " + capacities);
    assertEquals(1, changes(), "one decision for the fleet: " + capacities);
    for (WaitingRoom r : rooms) {
      assertEquals(15, r.capacity(), "and every instance holds it");
    }
  }

  /**
   * Regression (issue 15): a trouble one instance of three sees, in a third of the traffic, cut the
   * fleet's capacity, as if it were everyone's: that instance judged its own samples alone.
   */
  @Test
  void aSlowdownOnlyOneInstanceSeesIsWeighedAgainstEveryonesSamples() {
    run(3000, i -> 100);
    capacities.clear();
    run(6000, i -> i == 0 ? 500 : 100);
    assertEquals(20, rooms.get(0).capacity(), "the fleet's median stayed healthy: " + capacities);
    assertEquals(0, changes());
  }

  @Test
  void theFleetsDecisionsAreAtLeastAWindowApartWhoeverTakesThem() {
    run(3000, i -> 100);
    capacities.clear();
    run(12_000, i -> 400 + 100 * i);
    assertTrue(changes() >= 2, "sustained trouble keeps cutting: " + capacities);
    int last = -1;
    for (int i = 1; i < capacities.size(); i++) {
      if (!capacities.get(i).equals(capacities.get(i - 1))) {
        if (last >= 0) {
          assertTrue((i - last) * STEP >= 2000, "two troubled windows per cut: " + capacities);
        }
        last = i;
      }
    }
    assertTrue(rooms.get(0).capacity() >= 2, "never under the minimum");
  }
}
