package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.engine.AdmissionPacer;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admission rate, measured over simulated seconds on a fake clock: a room with plenty of
 * capacity and more demand than the rate, stepped every 100 ms.
 */
class AdmissionRateTest {
  private static final long STEP = 100;

  private final FakeClock clock = new FakeClock(7_777_777_777_777L);
  private final InMemoryLine line = new InMemoryLine(1000);
  private final WaitingRoom room = WaitingRoom.builder().line(line).clock(clock).build();
  private final List<Visitor> waiting = new ArrayList<>();
  private final List<Long> admittedAt = new ArrayList<>();
  private final List<Long> leavesAt = new ArrayList<>();

  @AfterEach
  void checkAndClose() {
    try {
      line.checkInvariants();
    } finally {
      room.close();
    }
  }

  /** One visitor as the filter treats it: the fast path, else a ticket. */
  private void visit() {
    if (room.tryEnter()) {
      admitted();
      return;
    }
    Visitor v = Visitor.arrive(room);
    if (v.arrived() == Outcome.ADMITTED) {
      admitted();
    } else {
      waiting.add(v);
    }
  }

  private void admitted() {
    admittedAt.add(clock.millis());
    leavesAt.add(clock.millis() + 2000); // each admitted request runs two seconds
  }

  /** One step: requests that are done leave, every waiting visitor polls, ready ones come in. */
  private void step() {
    clock.advanceMillis(STEP);
    for (int i = leavesAt.size() - 1; i >= 0; i--) {
      if (leavesAt.get(i) <= clock.millis()) {
        leavesAt.remove(i);
        room.exit();
      }
    }
    for (int i = 0; i < waiting.size(); i++) {
      Visitor v = waiting.get(i);
      if (v.ready()) {
        assertTrue(v.claim());
        admitted();
        waiting.remove(i--);
      }
    }
  }

  /** The most admissions in any window of {@code millis}. */
  private long busiest(long millis) {
    long most = 0;
    for (int i = 0; i < admittedAt.size(); i++) {
      long from = admittedAt.get(i);
      long n = admittedAt.stream().filter(t -> t >= from && t < from + millis).count();
      most = Math.max(most, n);
    }
    return most;
  }

  @Test
  void aBacklogIsAdmittedAtTheRateInSmallBursts() {
    double rate = 5;
    long burst = AdmissionPacer.burst(rate);
    room.setAdmissionRate(rate);
    long start = clock.millis();
    for (int i = 0; i < 400; i++) {
      visit();
    }
    assertEquals(burst, admittedAt.size(), "a full bucket lets a burst in at once, no more");
    for (int s = 0; s < 600; s++) {
      step();
    }
    // 60 simulated seconds at 5 a second, plus the first burst.
    long total = admittedAt.size();
    assertTrue(total >= burst + 60 * rate - 1 && total <= burst + 60 * rate, "total " + total);
    for (long window : new long[] {1000, 2000, 5000, 10_000}) {
      long bound = burst + (long) (rate * window / 1000);
      assertTrue(busiest(window) <= bound, window + " ms: " + busiest(window) + " > " + bound);
    }
    // Smooth: after the first burst, every simulated second admits the rate, give or take one.
    for (long sec = 1; sec < 60; sec++) {
      long from = start + sec * 1000;
      long n = admittedAt.stream().filter(t -> t >= from && t < from + 1000).count();
      assertTrue(Math.abs(n - rate) <= 1, "second " + sec + " admitted " + n);
    }
  }

  @Test
  void fastPathArrivalsAreMeteredTooAndTheRestQueueInOrder() {
    room.setAdmissionRate(2);
    Random random = new Random(42);
    for (int s = 0; s < 300; s++) {
      int arrivals = random.nextInt(3); // about ten a second
      for (int i = 0; i < arrivals; i++) {
        visit();
      }
      step();
    }
    assertTrue(busiest(1000) <= 2 + 2, "busiest second " + busiest(1000));
    assertTrue(busiest(10_000) <= 2 + 20, "busiest ten seconds " + busiest(10_000));
    long total = admittedAt.size();
    assertTrue(total >= 60 && total <= 62, "30 s at 2 a second, plus a burst of 2: " + total);
    assertTrue(waiting.size() > 200, "the rest wait: " + waiting.size());
  }

  @Test
  void aRateChangeAndAPauseTakeEffectAtOnce() {
    room.setAdmissionRate(1);
    for (int i = 0; i < 100; i++) {
      visit();
    }
    for (int s = 0; s < 100; s++) {
      step();
    }
    long atOne = admittedAt.size();
    assertTrue(atOne >= 10 && atOne <= 11, "10 s at 1 a second plus a burst of 1: " + atOne);

    room.setMode(RoomMode.PAUSED);
    for (int s = 0; s < 100; s++) {
      step();
    }
    assertEquals(atOne, admittedAt.size(), "nobody admitted while paused");

    room.setAdmissionRate(10);
    room.setMode(RoomMode.OPEN);
    for (int s = 0; s < 50; s++) {
      step();
    }
    // The bucket filled to its burst of one during the pause and keeps that across the rate
    // change: no fresh burst of ten for re-applying settings.
    long atTen = admittedAt.size() - atOne;
    assertTrue(atTen >= 50 && atTen <= 51, "5 s at 10 a second plus the one it held: " + atTen);

    room.setAdmissionRate(0);
    step();
    assertEquals(0, waiting.size(), "unlimited: capacity alone decides, and there is plenty");
  }

  /**
   * Regression: every setter call configured the bucket afresh, full, so {@code
   * setAdmissionRate(1)} ten times at one instant let ten in. Re-applying a rate, a pause and
   * resume, and a pre-sale scheduled and cancelled keep the tokens already spent.
   */
  @Test
  void reApplyingTheSameAdmissionRateKeepsTheTokensSpent() {
    room.setAdmissionRate(1);
    assertTrue(room.tryEnter(), "a full bucket of one");
    for (int i = 0; i < 10; i++) {
      room.setAdmissionRate(1);
      assertFalse(room.tryEnter(), "re-applied " + (i + 1) + " times: still spent");
    }
    room.setMode(RoomMode.PAUSED);
    room.setMode(RoomMode.OPEN);
    assertFalse(room.tryEnter(), "a pause and resume refill nothing");
    room.schedulePresale(clock.instant().plusSeconds(60));
    room.schedulePresale(null);
    assertFalse(room.tryEnter(), "nor does a pre-sale scheduled and cancelled");
    room.setAdmissionRate(3);
    assertFalse(room.tryEnter(), "a higher rate adds what accrues from now, not a burst");
    clock.advanceMillis(1000);
    assertTrue(room.tryEnter());
    assertTrue(room.tryEnter());
    assertTrue(room.tryEnter());
    assertFalse(room.tryEnter(), "three accrued in a second at three a second");
    for (int i = 0; i < 4; i++) {
      room.exit();
    }
  }
}
