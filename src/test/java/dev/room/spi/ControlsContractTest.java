package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sale controls' contract, run on every implementation: in this process and in Redis. Two
 * handles on one store stand for two instances on one line.
 */
public abstract class ControlsContractTest {
  /** A fresh, empty store. */
  protected abstract Controls newControls();

  /**
   * A second handle on the store {@code c} (another instance); {@code c} itself if there is one.
   */
  protected abstract Controls sameStore(Controls c);

  @Test
  void nothingIsSetAtFirst() {
    Controls.Settings s = newControls().read();
    assertEquals(0, s.version());
    assertNull(s.mode());
    assertNull(s.announcement());
    assertNull(s.rate());
  }

  @Test
  void eachWriteMovesTheVersionAndEveryHandleReadsIt() {
    Controls a = newControls();
    Controls b = sameStore(a);
    assertEquals(1, a.write(Controls.MODE, "PAUSED"));
    assertEquals(2, b.write(Controls.ANNOUNCEMENT, "Back at ten"));
    assertEquals(3, a.write(Controls.ANNOUNCEMENT, ""));
    assertEquals(4, b.write(Controls.RATE, "2.5"));
    for (Controls c : List.of(a, b)) {
      Controls.Settings s = c.read();
      assertEquals(4, s.version());
      assertEquals("PAUSED", s.mode(), "a write keeps the other controls");
      assertEquals("", s.announcement(), "an empty announcement is set, not absent");
      assertEquals("2.5", s.rate());
    }
  }

  @Test
  void concurrentWritersEachMoveTheVersionOnce() throws Exception {
    Controls a = newControls();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Controls c = sameStore(a);
        int n = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    c.write(Controls.RATE, n + "." + i);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(200, a.read().version());
  }

  @Test
  void anUnknownControlIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> newControls().write("colour", "red"));
  }
}
