package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** When the reaper runs: at its cadence, whatever the setters do; sooner when it shrinks. */
class ReaperCadenceTest {
  private final FakeClock clock = new FakeClock();
  private final ManualTimer timer = new ManualTimer();
  private final WaitingRoom room =
      WaitingRoom.builder()
          .capacity(1)
          .clock(clock)
          .tokenTtl(Duration.ofSeconds(30))
          .reaperInterval(Duration.ofSeconds(5))
          .reaperTimer(timer)
          .build();

  @AfterEach
  void close() {
    room.close();
  }

  /** Room time and reaper time move together, a second at a time. */
  private void tick() {
    clock.advance(Duration.ofSeconds(1));
    timer.advance(Duration.ofSeconds(1));
  }

  /**
   * Regression: every setter that refreshed the room cancelled the pending pass and scheduled a
   * full interval from now, even with the value unchanged, so a config reload faster than the
   * cadence stopped reaping for good: an abandoned ticket was never evicted.
   */
  @Test
  void settersNeverStarveTheReaper() {
    assertTrue(room.tryEnter());
    long[] t = Tokens.generate();
    assertEquals(
        Outcome.WAITING,
        Outcome.kind(room.arrive(t[0], t[1], Tokens.format(t[0], t[1]), "", false, false)));
    for (int s = 0; s < 60; s++) {
      tick();
      // a reload loop, once a second, writing every setting that refreshes the room
      room.setTokenTtl(Duration.ofSeconds(30));
      room.setReaperInterval(Duration.ofSeconds(5));
      room.setFirstPollGrace(Duration.ZERO);
      room.setOfferTimeout(WaitingRoom.DEFAULT_OFFER_TIMEOUT);
      room.setMaxQueueDepth(0);
    }
    assertTrue(timer.ran() >= 11, "a pass every 5 s for 60 s, ran " + timer.ran());
    assertEquals(0, room.liveQueueDepth(), "the abandoned ticket was evicted");
    assertEquals(1, timer.pending(), "one pass pending, never two");
    room.exit();
  }

  @Test
  void aShorterCadenceBringsThePassForwardAndALongerOneNeverPushesItBack() {
    room.setReaperInterval(Duration.ofMinutes(10));
    room.setOfferTimeout(Duration.ofMinutes(10));
    timer.advance(Duration.ofSeconds(4));
    int before = timer.ran();
    assertEquals(0, before, "the first pass was due 5 s after the start");
    timer.advance(Duration.ofSeconds(1));
    assertEquals(1, timer.ran(), "a longer cadence did not push the due pass back");
    timer.advance(Duration.ofSeconds(60));
    assertEquals(1, timer.ran(), "the next is 10 min after it");
    room.setReaperInterval(Duration.ofSeconds(30)); // due 30 s after the last pass: now
    timer.advance(Duration.ZERO);
    assertEquals(2, timer.ran(), "a shorter cadence brought the pass forward");
    timer.advance(Duration.ofSeconds(29));
    assertEquals(2, timer.ran());
    timer.advance(Duration.ofSeconds(1));
    assertEquals(3, timer.ran(), "and it runs at the new cadence from there");
    assertEquals(1, timer.pending());
  }
}
