package dev.room.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make demo}'s main: a line forms by itself within seconds, and no past line is restored.
 */
class DemoTest {
  @TempDir Path dir;

  @Test
  void aSimulatedVisitorIsQueuedWithinTenSeconds() throws Exception {
    Demo.Running demo =
        Demo.start(
            new String[] {"--port", "0", "--admin-token-file", dir.resolve("token").toString()},
            Map.of());
    try {
      var room = demo.sample.room();
      assertEquals(3, room.capacity(), "a small room");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (room.queueDepth() == 0 && System.nanoTime() < deadline) {
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      }
      assertTrue(room.queueDepth() > 0, "a visitor is waiting in line within 10 s");
    } finally {
      demo.stop();
    }
  }

  @Test
  void theDemoNeverRestoresOrSavesALine() {
    assertNull(Demo.defaults().stateFile);
  }

  @Test
  void badDemoFlagsAreRefusedWithTheirName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Demo.start(new String[] {"--crowd", "many"}, Map.of()));
    assertTrue(e.getMessage().contains("--crowd"), e.getMessage());
  }
}
