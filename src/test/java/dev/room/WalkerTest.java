package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WalkerTest {
  @Test
  void aWalkAskedForOnEveryRoundDoesNotKeepTheWalkingThreadForGood() {
    // Regression (the soak stalled on a loaded machine): status polls asked for a wake every 50
    // ms while a round took longer, so the thread giving a slot back walked for good. Here each
    // round asks for the next one from "another thread" (nested: its ask finds the walker busy).
    Walker w = new Walker();
    AtomicInteger rounds = new AtomicInteger();
    Runnable[] walk = new Runnable[1];
    walk[0] =
        () -> {
          rounds.incrementAndGet();
          w.walk(walk[0]); // finds a walk running: asks for another round, returns at once
        };
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> w.walk(walk[0]));
    assertEquals(Walker.ROUNDS, rounds.get());
  }

  @Test
  void aWalkAskedForMeanwhileIsWalkedOnceMore() {
    Walker w = new Walker();
    AtomicInteger rounds = new AtomicInteger();
    Runnable[] walk = new Runnable[1];
    walk[0] =
        () -> {
          if (rounds.incrementAndGet() == 1) {
            w.walk(walk[0]);
          }
        };
    w.walk(walk[0]);
    assertEquals(2, rounds.get());
  }
}
