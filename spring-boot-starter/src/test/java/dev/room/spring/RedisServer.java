package dev.room.spring;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} on a free loopback port, without persistence. Without the binary the
 * test is skipped with a note, except on CI ({@code CI=true}), where {@code .ci/run} installs it
 * and a missing binary is a failure.
 */
final class RedisServer implements AutoCloseable {
  private final Process process;
  private final int port;

  private RedisServer(String binary, int port) throws IOException {
    this.port = port;
    this.process =
        new ProcessBuilder(
                binary,
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no")
            .redirectErrorStream(true)
            .start();
  }

  static RedisServer start() throws IOException {
    RedisServer s = new RedisServer(binaryOrSkip(), freePort());
    s.awaitReady();
    return s;
  }

  String uri() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits (bounded) for the log line; a daemon thread keeps draining it so the pipe never fills.
   */
  private void awaitReady() throws IOException {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    StringBuilder log = new StringBuilder();
    Thread drain =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                  if (!ready.isDone()) {
                    synchronized (log) {
                      log.append(line).append('\n');
                    }
                  }
                  if (line.contains("Ready to accept connections")) {
                    ready.complete(null);
                  }
                }
              } catch (IOException e) {
                ready.completeExceptionally(e);
              }
              ready.completeExceptionally(new IOException("redis-server exited"));
            },
            "redis-log-" + port);
    drain.setDaemon(true);
    drain.start();
    try {
      ready.get(15, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      synchronized (log) {
        fail("redis-server on port " + port + " did not start: " + log, e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static String binaryOrSkip() {
    String path = System.getenv("PATH");
    for (String d : ((path == null ? "" : path) + ":/usr/bin:/usr/local/bin").split(":")) {
      Path p = Path.of(d.isEmpty() ? "." : d, "redis-server");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    String note = "redis-server is not installed (apt-get install redis-server)";
    if ("true".equals(System.getenv("CI"))) {
      fail(note + "; .ci/run installs it on CI");
    }
    Assumptions.abort(note + "; skipping the Redis line test");
    return null;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
