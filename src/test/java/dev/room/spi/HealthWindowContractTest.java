package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The health window's contract, run on every implementation: in this process and in Redis. Two
 * handles on one store stand for two instances on one line, feeding one window.
 */
public abstract class HealthWindowContractTest {
  private static final HealthWindow.Rule RULE = new HealthWindow.Rule(1000, 5, 10_000, 255);
  private static final long T0 = 1_700_000_000_000L;

  /** A fresh, empty window. */
  protected abstract HealthWindow newWindow();

  /**
   * A second handle on the window {@code w} (another instance); {@code w} itself if there is one.
   */
  protected abstract HealthWindow sameStore(HealthWindow w);

  private static HealthWindow.Samples samples(int errors, int peak, long... latencies) {
    return new HealthWindow.Samples(latencies.length, errors, peak, latencies);
  }

  @Test
  void aWindowClosesOnceOldEnoughAndFullEnoughWithEverySampleAddedToIt() {
    HealthWindow a = newWindow();
    HealthWindow b = sameStore(a);
    assertNull(a.add(samples(0, 3, 10, 20, 30), T0, RULE), "opened");
    assertNull(b.add(samples(1, 7, 40, 50, 60), T0 + 999, RULE), "not a second old yet");
    HealthWindow.Closed c = b.add(samples(0, 2, 70), T0 + 1000, RULE);
    assertNotNull(c, "a second old and seven samples: closed, for the add that closed it");
    assertEquals(T0, c.start());
    assertEquals(7, c.count());
    assertEquals(1, c.errors());
    assertEquals(7, c.peakInFlight());
    assertArrayEquals(new long[] {10, 20, 30, 40, 50, 60, 70}, c.latencies(), "oldest first");
    assertNull(c.state(), "no decision saved yet");
    assertNull(a.add(samples(0, 1, 5), T0 + 1500, RULE), "the next sample opens the next window");
    HealthWindow.Closed next = a.add(samples(0, 1, 6, 7, 8, 9), T0 + 2500, RULE);
    assertNotNull(next);
    assertEquals(T0 + 1500, next.start(), "which starts at its first sample");
    assertEquals(5, next.count());
    assertArrayEquals(new long[] {5, 6, 7, 8, 9}, next.latencies());
  }

  @Test
  void tooFewSamplesKeepItOpenUntilItsLongestAge() {
    HealthWindow a = newWindow();
    assertNull(a.add(samples(0, 1, 10), T0, RULE));
    assertNull(a.add(samples(0, 1, 10, 10), T0 + 5000, RULE), "three samples: not enough");
    HealthWindow.Closed c = sameStore(a).add(samples(2, 1, 10), T0 + 10_000, RULE);
    assertNotNull(c, "ten seconds old: closed with what it has");
    assertEquals(4, c.count());
    assertEquals(2, c.errors());
  }

  @Test
  void itKeepsTheMostRecentLatenciesOnlyButCountsEveryRequest() {
    HealthWindow.Rule small = new HealthWindow.Rule(1000, 5, 10_000, 4);
    HealthWindow a = newWindow();
    assertNull(a.add(samples(0, 1, 1, 2, 3), T0, small));
    HealthWindow.Closed c = sameStore(a).add(samples(0, 1, 4, 5, 6), T0 + 1000, small);
    assertEquals(6, c.count());
    assertArrayEquals(new long[] {3, 4, 5, 6}, c.latencies());
    HealthWindow.Samples partial = new HealthWindow.Samples(9, 1, 2, new long[] {7, 8});
    assertNull(a.add(partial, T0 + 1100, small), "a batch with fewer latencies than requests");
    HealthWindow.Closed d = a.add(samples(0, 1, 9), T0 + 2100, small);
    assertEquals(10, d.count());
    assertArrayEquals(new long[] {7, 8, 9}, d.latencies());
  }

  @Test
  void theSavedStateTravelsWithTheNextClosedWindowToWhoeverClosesIt() {
    HealthWindow a = newWindow();
    HealthWindow b = sameStore(a);
    a.add(samples(0, 1, 1, 1, 1, 1, 1), T0, RULE);
    HealthWindow.Closed c = a.add(samples(0, 1, 1), T0 + 1000, RULE);
    assertNull(c.state());
    a.save("100.0 1700000001000 20 1 0");
    b.add(samples(0, 1, 1, 1, 1, 1, 1), T0 + 1100, RULE);
    HealthWindow.Closed d = b.add(samples(0, 1, 1), T0 + 2100, RULE);
    assertEquals("100.0 1700000001000 20 1 0", d.state(), "the other instance decides from it");
  }

  @Test
  void anEmptyAddChangesNothing() {
    HealthWindow a = newWindow();
    assertNull(a.add(samples(0, 0), T0, RULE));
    assertNull(a.add(samples(0, 1, 1, 1, 1, 1), T0 + 5000, RULE), "the window opens here");
    assertNotNull(a.add(samples(0, 1, 1), T0 + 6000, RULE));
  }

  @Test
  void concurrentInstancesPutEverySampleInExactlyOneWindow() throws Exception {
    HealthWindow.Rule tenEach = new HealthWindow.Rule(0, 10, 1_000_000, 255);
    HealthWindow a = newWindow();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<List<HealthWindow.Closed>>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        HealthWindow w = sameStore(a);
        done.add(
            pool.submit(
                () -> {
                  go.await();
                  List<HealthWindow.Closed> mine = new ArrayList<>();
                  for (int i = 0; i < 50; i++) {
                    HealthWindow.Closed c = w.add(samples(0, 1, 5), T0, tenEach);
                    if (c != null) {
                      mine.add(c);
                    }
                  }
                  return mine;
                }));
      }
      go.countDown();
      List<HealthWindow.Closed> all = new ArrayList<>();
      for (Future<List<HealthWindow.Closed>> f : done) {
        all.addAll(f.get(30, TimeUnit.SECONDS));
      }
      assertEquals(20, all.size(), "two hundred samples, ten a window");
      for (HealthWindow.Closed c : all) {
        assertEquals(10, c.count(), "each closed once, by one instance");
        assertEquals(10, c.latencies().length);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
