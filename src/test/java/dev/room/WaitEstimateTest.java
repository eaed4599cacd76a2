package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Wait estimates against the truth, in a simulation with a known admission rate: 20 slots, each
 * admitted request running 5 to 15 s (10 s on average), so about two admissions a second, and a
 * long line. Estimates taken at several moments must contain the time each visitor then really
 * waited until told it was ready.
 */
class WaitEstimateTest {
  private static final long STEP = 100;

  private final FakeClock clock = new FakeClock(1_234_567_890_123L);
  private final WaitingRoom room =
      WaitingRoom.builder().capacity(20).clock(clock).tokenTtl(Duration.ofHours(1)).build();
  private final Random random = new Random(20_260_101);
  private final List<Long> running = new ArrayList<>();
  private final List<Visitor> line = new ArrayList<>();
  private final Map<Visitor, Long> readyAt = new HashMap<>();

  @AfterEach
  void close() {
    room.close();
  }

  private void admit() {
    running.add(clock.millis() + 5000 + random.nextInt(10_001));
  }

  private void step() {
    clock.advanceMillis(STEP);
    for (int i = running.size() - 1; i >= 0; i--) {
      if (running.get(i) <= clock.millis()) {
        running.remove(i);
        room.exit();
      }
    }
    // Slots are handed over in line order, so the ready visitors are a prefix of the line.
    while (!line.isEmpty() && line.get(0).ready()) {
      Visitor v = line.remove(0);
      readyAt.put(v, clock.millis());
      assertTrue(v.claim());
      admit();
    }
  }

  private record Estimate(Visitor visitor, long position, long at, long low, long high) {}

  private List<Estimate> estimates() {
    List<Estimate> out = new ArrayList<>();
    for (Visitor v : line) {
      long position = v.position();
      Standing s = room.sale().standing(position, clock.millis());
      assertTrue(s.waitLow() >= 0, "an estimate for position " + position);
      assertTrue(s.waitLow() <= s.waitHigh());
      out.add(new Estimate(v, position, clock.millis(), s.waitLow(), s.waitHigh()));
    }
    return out;
  }

  @Test
  void theTrueWaitFallsWithinTheStatedRange() {
    while (room.tryEnter()) {
      admit();
    }
    for (int i = 0; i < 700; i++) {
      Visitor v = Visitor.arrive(room);
      assertEquals(Outcome.WAITING, v.arrived());
      line.add(v);
    }
    assertEquals(-1, room.sale().standing(1, clock.millis()).waitLow(), "no rate measured yet");
    List<Estimate> all = new ArrayList<>();
    double rate = Double.NaN;
    for (int s = 1; s <= 4000; s++) {
      step();
      if (s == 300 || s == 1200 || s == 2000) { // at 30 s, 120 s and 200 s
        all.addAll(estimates());
        rate = room.measuredAdmissionRate();
      }
    }
    assertTrue(line.isEmpty(), line.size() + " still waiting");
    assertTrue(rate > 1.7 && rate < 2.3, "measured " + rate + " a second, truly about 2");
    int checked = 0;
    double worst = 0;
    for (Estimate e : all) {
      long truth = (readyAt.get(e.visitor()) - e.at()) / 1000;
      assertTrue(
          e.low() <= truth && truth <= e.high(),
          "position "
              + e.position()
              + ": waited "
              + truth
              + " s, told "
              + e.low()
              + "–"
              + e.high());
      worst = Math.max(worst, (double) e.high() / Math.max(1, e.low()));
      if (e.position() >= 100) {
        assertTrue(e.high() <= 2.3 * e.low(), "a useful range far back: " + e);
      }
      checked++;
    }
    assertTrue(checked > 1000, "estimates checked: " + checked);
    assertTrue(worst > 1, "ranges are ranges");
    System.out.printf(
        "wait estimates: %d checked, all within range; widest high/low %.2f%n", checked, worst);
  }

  @Test
  void noEstimateWhilePausedAndTheRateIsKeptAcrossThePause() {
    while (room.tryEnter()) {
      admit();
    }
    for (int i = 0; i < 200; i++) {
      line.add(Visitor.arrive(room));
    }
    for (int s = 0; s < 300; s++) {
      step();
    }
    double before = room.measuredAdmissionRate();
    assertTrue(before > 1, "measured " + before);
    assertTrue(room.sale().standing(10, clock.millis()).waitLow() >= 0);

    room.setMode(RoomMode.PAUSED);
    for (int s = 0; s < 600; s++) {
      step();
    }
    Standing paused = room.sale().standing(10, clock.millis());
    assertEquals(-1, paused.waitLow(), "no estimate while nothing moves");
    assertEquals(-1, paused.waitHigh());
    assertTrue(Double.isNaN(room.measuredAdmissionRate()));

    room.setMode(RoomMode.OPEN);
    double after = room.measuredAdmissionRate();
    assertEquals(before, after, 0.3, "a minute of pause did not drag the rate down");
    assertFalse(room.sale().standing(10, clock.millis()).waitLow() < 0);
  }

  @Test
  void pollsComeLessOftenFromFarBackAndInALongLineAndAlwaysJitter() {
    room.setMode(RoomMode.QUEUE_ALL);
    for (int i = 0; i < 50_000; i++) {
      Visitor.arrive(room);
    }
    long now = clock.millis();
    long near = room.sale().standing(3, now).pollAfterMillis();
    long far = room.sale().standing(40_000, now).pollAfterMillis();
    assertTrue(near <= 2400, "near the front: " + near);
    double farBase = 3000 * (1 + 1.5 * Math.log10(40)); // place 40 000: × 3.4
    assertTrue(
        far >= (long) (farBase * 0.8) - 1 && far <= (long) (farBase * 1.2) + 1,
        "50k waiting, far back, ±20% jitter: " + far);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 20; i++) {
      seen.add(room.sale().standing(40_000, now).pollAfterMillis());
    }
    assertTrue(seen.size() > 10, "jittered: " + seen);
    room.setMode(RoomMode.CLOSED); // as a pause: a reopening is noticed at the next poll
    long closed = room.sale().standing(40_000, now).pollAfterMillis();
    double closedBase = Standing.PAUSED_POLL_MILLIS * (1 + 1.5 * Math.log10(40));
    assertTrue(
        closed >= (long) (closedBase * 0.8) - 1 && closed <= (long) (closedBase * 1.2) + 1,
        "closed, far back: " + closed);
  }
}
