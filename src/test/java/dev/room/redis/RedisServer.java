package dev.room.redis;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} on a free loopback port, in a directory of its own, with AOF on
 * (every write synced), so it can be stopped and started again with its line intact.
 *
 * <p>Without the binary the tests are skipped with a note naming the package, except on CI ({@code
 * CI=true}), where a missing binary is a failure: {@code .ci/run} installs it.
 */
final class RedisServer implements AutoCloseable {
  private static final List<String> PLACES =
      List.of(
          "/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/homebrew/bin/redis-server");

  private final String binary;
  private final Path dir;
  private final int port;
  private Process process;

  private RedisServer(String binary) throws IOException {
    this.binary = binary;
    this.dir = Files.createTempDirectory("room-redis");
    this.port = freePort();
  }

  /** Starts a server, or skips (fails on CI) when redis-server is not installed. */
  static RedisServer start() throws IOException {
    RedisServer s = new RedisServer(binaryOrSkip());
    s.startProcess();
    return s;
  }

  String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** Stops the server the way an operator would (SIGTERM: Redis syncs its AOF and exits). */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Starts it again on the same port and directory; it reloads the line from its AOF. */
  void restart() throws IOException {
    startProcess();
  }

  @Override
  public void close() throws IOException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private void startProcess() throws IOException {
    process =
        new ProcessBuilder(
                binary,
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--protected-mode",
                "no",
                "--maxmemory-policy",
                "noeviction",
                "--logfile",
                dir.resolve("redis.log").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .start();
    awaitPong();
  }

  /** Waits (bounded) until the server answers PING, past any AOF loading. */
  private void awaitPong() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        fail("redis-server exited: " + Files.readString(dir.resolve("redis.log")));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        s.setSoTimeout(1000);
        OutputStream out = s.getOutputStream();
        out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        byte[] b = new byte[5];
        if (in.readNBytes(b, 0, 5) == 5
            && new String(b, StandardCharsets.US_ASCII).equals("+PONG")) {
          return;
        }
      } catch (IOException notYet) {
        // still starting
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(20); // polling a starting process: there is nothing to wait on instead
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
    fail("redis-server did not answer PING on port " + port + " within 15 s");
  }

  private static String binaryOrSkip() {
    for (String p : PLACES) {
      if (Files.isExecutable(Path.of(p))) {
        return p;
      }
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(java.io.File.pathSeparator)) {
        Path p = Path.of(d, "redis-server");
        if (Files.isExecutable(p)) {
          return p.toString();
        }
      }
    }
    String note = "redis-server is not installed (apt-get install redis-server)";
    if ("true".equals(System.getenv("CI"))) {
      fail(note + "; .ci/run installs it on CI");
    }
    Assumptions.abort(note + "; skipping the Redis line tests");
    return null;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
