package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.LongToIntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The health-driven capacity controller against a simulated origin on a fake clock. The origin
 * serves {@code healthy} requests at once in 100 ms; beyond that they share it, each taking {@code
 * 100 ms × running / healthy} (a processor-sharing server). Demand never ends: every free slot is
 * taken at once.
 */
class AdaptiveCapacityTest {
  private static final long STEP = 10;
  private static final long BASE = 100;

  private final FakeClock clock = new FakeClock(4_000_000_000_017L);
  private final long start = clock.millis();
  private final WaitingRoom room = WaitingRoom.builder().capacity(20).clock(clock).build();
  private final PriorityQueue<long[]> running =
      new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
  private final List<int[]> capacityAt = new ArrayList<>(); // {second, capacity}
  private final List<long[]> latencies = new ArrayList<>(); // {finished at (ms since start), ms}

  @AfterEach
  void close() {
    room.close();
  }

  /** Runs until {@code untilSecond}; {@code healthy} gives the origin's capacity at a second. */
  private void run(long untilSecond, LongToIntFunction healthy, long slowOneAt) {
    while (clock.millis() - start < untilSecond * 1000) {
      clock.advanceMillis(STEP);
      long now = clock.millis();
      while (!running.isEmpty() && running.peek()[0] <= now) {
        long[] r = running.poll();
        latencies.add(new long[] {now - start, now - r[1]});
        room.sampled(r[1], false); // as the filter does, before the slot is given back
        room.exit();
      }
      long second = (now - start) / 1000;
      int l = healthy.applyAsInt(second);
      while (room.tryEnter()) {
        long latency = BASE * Math.max(l, room.inFlight()) / l;
        if (slowOneAt >= 0 && now - start >= slowOneAt) {
          latency = 50 * BASE; // one pathological request
          slowOneAt = -1;
        }
        running.add(new long[] {now + latency, now});
      }
      if ((now - start) % 1000 == 0) {
        capacityAt.add(new int[] {(int) second, room.capacity()});
      }
    }
  }

  private int capacityAtSecond(int second) {
    return capacityAt.stream().filter(c -> c[0] == second).findFirst().orElseThrow()[1];
  }

  /** How often the capacity turned from rising to falling or back. */
  private int directionChanges() {
    int changes = 0;
    int last = 0;
    for (int i = 1; i < capacityAt.size(); i++) {
      int d = Integer.signum(capacityAt.get(i)[1] - capacityAt.get(i - 1)[1]);
      if (d != 0) {
        if (last != 0 && d != last) {
          changes++;
        }
        last = d;
      }
    }
    return changes;
  }

  private long worstLatency(long fromSecond, long toSecond) {
    return latencies.stream()
        .filter(l -> l[0] >= fromSecond * 1000 && l[0] < toSecond * 1000)
        .mapToLong(l -> l[1])
        .max()
        .orElseThrow();
  }

  @Test
  void theOriginSlowsDownAndRecoversAndTheControllerFollowsWithoutOscillating() {
    room.setCapacityController(CapacityController.adaptive(2, 100));
    LongToIntFunction origin = second -> second >= 60 && second < 180 ? 10 : 40;
    run(300, origin, -1);

    int settled = capacityAtSecond(59);
    assertTrue(settled >= 40 && settled <= 55, "healthy: grows to about 40–50, was " + settled);
    assertTrue(worstLatency(40, 60) <= 1.3 * BASE, "healthy latency " + worstLatency(40, 60));

    int slowed = capacityAtSecond(179);
    assertTrue(slowed >= 10 && slowed <= 20, "slowed down: cut to about 10–20, was " + slowed);
    long during = worstLatency(80, 180);
    assertTrue(during <= 2 * BASE, "origin latency bounded during the slowdown: " + during);
    int cutBy = -1;
    for (int s = 60; s < 180; s++) {
      if (capacityAtSecond(s) <= 20) {
        cutBy = s;
        break;
      }
    }
    assertTrue(cutBy >= 60 && cutBy <= 75, "cut quickly: within " + (cutBy - 60) + " s");

    int recovered = capacityAtSecond(299);
    assertTrue(recovered >= 40, "recovered slowly to about 40–50, was " + recovered);
    assertTrue(capacityAtSecond(190) < 30, "but slowly: " + capacityAtSecond(190));
    assertTrue(worstLatency(260, 300) <= 1.3 * BASE, "latency " + worstLatency(260, 300));

    assertTrue(directionChanges() <= 3, "direction changes: " + directionChanges());
    System.out.printf(
        "adaptive capacity: settled %d, slowed %d (cut within %d s, worst latency %d ms),"
            + " recovered %d, direction changes %d%n",
        settled, slowed, cutBy - 60, during, recovered, directionChanges());
  }

  @Test
  void aSingleSlowRequestMovesNothing() {
    room.setCapacityController(CapacityController.adaptive(2, 100));
    run(60, second -> 40, 45_000);
    List<int[]> after = capacityAt.subList(44, capacityAt.size());
    int at44 = after.get(0)[1];
    for (int[] c : after) {
      assertTrue(c[1] >= at44, "no cut for one slow request at second " + c[0]);
    }
    assertEquals(0, directionChanges(), "never turned");
  }

  @Test
  void seriousErrorsHalveTheCapacityAtOnceAndBoundsHold() {
    CapacityController c = CapacityController.adaptive(4, 8);
    long now = clock.millis();
    int capacity = 8;
    for (int i = 0; i < 10; i++) {
      capacity = c.onSample(now + i * 120, 100, i % 3 == 0, 8, capacity);
    }
    assertEquals(4, capacity, "30% errors: halved at once");
    assertEquals(4, c.onSample(now + 5000, 100, true, 4, 1), "never below min");
    assertEquals(8, c.onSample(now + 5001, 100, false, 4, 1000), "never above max");
    assertThrows(IllegalArgumentException.class, () -> CapacityController.adaptive(0, 5));
    assertThrows(IllegalArgumentException.class, () -> CapacityController.adaptive(5, 4));
  }

  @Test
  void itStaysOffByDefault() {
    run(20, second -> 5, -1);
    assertEquals(20, room.capacity());
    assertEquals(null, room.capacityController());
  }
}
