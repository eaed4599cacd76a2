package dev.room.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Step 9 and step 7 of the tutorial: the line is saved on shutdown and restored on start-up. */
class RestartTest {
  @TempDir Path dir;

  @Test
  void theLineSurvivesARestart() throws Exception {
    Path file = dir.resolve("line.json");
    Settings s = settings(file, Duration.ofSeconds(60));
    Main.Sample before = Main.start(s);
    TestBrowser holder = new TestBrowser(before.port());
    holder.getAsync("/");
    await(() -> before.room().inFlight() == 1, "the slot is taken");
    TestBrowser b = new TestBrowser(before.port());
    TestBrowser c = new TestBrowser(before.port());
    b.get("/");
    c.get("/");
    assertEquals(2, before.room().queueDepth());

    before.stop(Duration.ZERO);
    assertTrue(Files.exists(file), "saved on shutdown");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    try (var leftovers = Files.list(dir)) {
      assertEquals(1, leftovers.count(), "no temporary file left behind");
    }

    Main.Sample after = Main.start(settings(file, Duration.ofMillis(50)));
    try {
      assertFalse(Files.exists(file), "restored once, then deleted");
      assertEquals(2, after.room().liveQueueDepth(), "both clients are back in line");
      b.moveTo(after.port());
      c.moveTo(after.port());
      // Nothing is in flight after an import: the first in line is let in on its first poll.
      assertEquals("{\"ready\":true,\"position\":0}", b.get("/queue/status").body());
      assertTrue(b.get("/").body().contains(ShopServlet.MARKER), "b is in");
      await(() -> after.room().inFlight() == 0, "b's request is done");
      // c's page polls after the restart too (a restored client not heard from loses its turn,
      // not its place, to those who are): with the slot free, c is ready on that poll.
      assertTrue(c.get("/queue/status").body().startsWith("{\"ready\":true"), "c is next");
      assertTrue(c.get("/").body().contains(ShopServlet.MARKER), "c is in, in turn");
    } finally {
      after.stop(Duration.ZERO);
    }
  }

  @Test
  void aLineSavedLongerAgoThanTheMaxAgeIsFromAPastSessionAndNotRestored() throws Exception {
    Path file = dir.resolve("line.json");
    Main.Sample before = Main.start(settings(file, Duration.ofSeconds(60)));
    TestBrowser holder = new TestBrowser(before.port());
    holder.getAsync("/");
    await(() -> before.room().inFlight() == 1, "the slot is taken");
    new TestBrowser(before.port()).get("/");
    assertEquals(1, before.room().queueDepth());
    before.stop(Duration.ZERO);
    Files.setLastModifiedTime(
        file, FileTime.from(Instant.now().minus(Duration.ofMinutes(1)).minusSeconds(5)));

    Main.Sample after = Main.start(settings(file, Duration.ofMillis(50)));
    try {
      assertEquals(0, after.room().liveQueueDepth(), "yesterday's visitors are not put back");
      assertFalse(Files.exists(file), "and the stale file is gone");
    } finally {
      after.stop(Duration.ZERO);
    }
  }

  @Test
  void aStartThatCannotBindPutsTheRestoredLineBack() throws Exception {
    Path file = dir.resolve("line.json");
    Main.Sample before = Main.start(settings(file, Duration.ofSeconds(60)));
    new TestBrowser(before.port()).getAsync("/");
    await(() -> before.room().inFlight() == 1, "the slot is taken");
    new TestBrowser(before.port()).get("/");
    before.stop(Duration.ZERO);
    assertTrue(Files.exists(file));

    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, null)) {
      Settings s = settings(file, Duration.ofMillis(50));
      s.host = "0.0.0.0";
      s.port = taken.getLocalPort();
      org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> Main.start(s));
    }
    assertTrue(Files.exists(file), "the line is back on disk for the next start");
    Main.Sample after = Main.start(settings(file, Duration.ofMillis(50)));
    try {
      assertEquals(1, after.room().liveQueueDepth(), "and restored by it");
    } finally {
      after.stop(Duration.ZERO);
    }
  }

  @Test
  void anUnreadableFileIsMovedAsideAndTheShopStarts() throws Exception {
    Path file = dir.resolve("line.json");
    Files.writeString(file, "{\"format\":\"dev.room/line\",\"version\":999}");
    Main.Sample sample = Main.start(settings(file, Duration.ofMillis(50)));
    try {
      assertFalse(Files.exists(file));
      assertTrue(Files.exists(dir.resolve("line.json.rejected")));
      assertEquals(0, sample.room().liveQueueDepth());
    } finally {
      sample.stop(Duration.ZERO);
    }
  }

  private static Settings settings(Path file, Duration work) {
    Settings s = new Settings();
    s.port = 0;
    s.capacity = 1;
    s.work = work;
    s.stateFile = file;
    s.adminToken = "restart-test-token";
    return s;
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }
  }
}
