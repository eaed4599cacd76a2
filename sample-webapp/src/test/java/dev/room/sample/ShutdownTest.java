package dev.room.sample;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** Stopping the sample while requests run: a graceful stop, one log line, no stack trace. */
class ShutdownTest {
  @Test
  void stoppingWhileRequestsRunPrintsNoTimeoutStackTrace() throws Exception {
    Settings s = new Settings();
    s.port = 0;
    s.capacity = 2;
    s.work = Duration.ofSeconds(60); // outlasts the grace below
    s.stateFile = null;
    s.adminToken = "shutdown-test-token";
    Main.Sample sample = Main.start(s);
    new TestBrowser(sample.port()).getAsync("/");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (sample.room().inFlight() == 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
    }
    assertTrue(sample.room().inFlight() == 1, "a request is running");

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream saved = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      sample.stop(Duration.ofMillis(300));
    } finally {
      System.setErr(saved);
    }
    String log = err.toString(StandardCharsets.UTF_8);
    assertFalse(log.contains("TimeoutException"), log);
    assertFalse(log.contains("\tat "), "no stack trace: " + log);
  }
}
