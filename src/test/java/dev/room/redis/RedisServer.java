package dev.room.redis;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} on a free loopback port, in a directory of its own, with AOF on
 * (every write synced), so it can be stopped and started again with its line intact. The same
 * binary runs cluster nodes ({@link #clusterNode()}), replicas ({@link #replicaOf}) and sentinels
 * ({@link #sentinel}): Debian's {@code redis-sentinel} is a link to it.
 *
 * <p>Without the binary the tests are skipped with a note naming the package, except on CI ({@code
 * CI=true}), where a missing binary is a failure: {@code .ci/run} installs it.
 */
final class RedisServer implements AutoCloseable {
  private static final List<String> PLACES =
      List.of(
          "/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/homebrew/bin/redis-server");
  private static final String READY = "Ready to accept connections";

  private final String binary;
  private final Path dir;
  private final int port;
  private final List<String> extra;
  private final String readyLine;
  private Process process;

  private RedisServer(String binary, List<String> extra, String readyLine) throws IOException {
    this(binary, extra, readyLine, freePort());
  }

  private RedisServer(String binary, List<String> extra, String readyLine, int port)
      throws IOException {
    this.binary = binary;
    this.dir = Files.createTempDirectory("room-redis");
    this.port = port;
    this.extra = extra;
    this.readyLine = readyLine;
  }

  /** Starts a server, or skips (fails on CI) when redis-server is not installed. */
  static RedisServer start() throws IOException {
    return start(List.of(), READY);
  }

  /** Starts a node for a Redis Cluster, with no slots yet and no AOF (see {@link LocalCluster}). */
  static RedisServer clusterNode() throws IOException {
    RedisServer s =
        new RedisServer(
            binaryOrSkip(),
            List.of(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "2000",
                "--appendonly",
                "no"),
            READY,
            freeClusterPort());
    s.startProcess();
    return s;
  }

  /** Starts a replica of {@code primary}. */
  static RedisServer replicaOf(RedisServer primary) throws IOException {
    return start(List.of("--replicaof", "127.0.0.1", Integer.toString(primary.port)), READY);
  }

  /**
   * Starts a sentinel watching {@code primary} as {@code master} with a quorum of one, quick to
   * judge it down.
   */
  static RedisServer sentinel(RedisServer primary, String master) throws IOException {
    RedisServer s = new RedisServer(binaryOrSkip(), List.of(), "+monitor master");
    Path conf = s.dir.resolve("sentinel.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "port " + s.port,
            "bind 127.0.0.1",
            "protected-mode no",
            "dir " + s.dir,
            "sentinel monitor " + master + " 127.0.0.1 " + primary.port + " 1",
            "sentinel down-after-milliseconds " + master + " 2000",
            "sentinel failover-timeout " + master + " 10000",
            ""));
    s.startProcess(List.of(s.binary, conf.toString(), "--sentinel"));
    return s;
  }

  private static RedisServer start(List<String> extra, String readyLine) throws IOException {
    RedisServer s = new RedisServer(binaryOrSkip(), extra, readyLine);
    s.startProcess();
    return s;
  }

  int port() {
    return port;
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

  /** Whether the server process is running (it was not stopped, or was started again). */
  boolean running() {
    return process != null && process.isAlive();
  }

  /** Starts it again on the same port and directory; it reloads the line from its AOF. */
  void restart() throws IOException {
    startProcess();
  }

  /**
   * Starts it again on the same port with nothing on disk, as a server without persistence (or one
   * whose disk was lost) comes back: every key is gone.
   */
  void restartEmpty() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .filter(p -> !p.equals(dir))
          .sorted(Comparator.reverseOrder())
          .forEach(p -> p.toFile().delete());
    }
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
    List<String> command =
        new ArrayList<>(
            List.of(
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
                "noeviction"));
    command.addAll(extra); // a later option wins
    startProcess(command);
  }

  private void startProcess(List<String> command) throws IOException {
    process = new ProcessBuilder(command).redirectErrorStream(true).start();
    awaitReady();
  }

  /**
   * Waits (bounded) for redis-server to log that it accepts connections, which it does only after
   * loading its AOF. A daemon thread keeps copying the log to {@code redis.log} so the pipe never
   * fills and blocks the server.
   */
  private void awaitReady() throws IOException {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Path log = dir.resolve("redis.log");
    InputStream out = process.getInputStream();
    Thread drain =
        new Thread(
            () -> {
              try (var lines =
                      new java.io.BufferedReader(
                          new java.io.InputStreamReader(out, StandardCharsets.UTF_8));
                  var file = Files.newBufferedWriter(log)) {
                for (String line; (line = lines.readLine()) != null; ) {
                  file.write(line);
                  file.newLine();
                  file.flush();
                  if (line.contains(readyLine)) {
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
      fail("redis-server on port " + port + " did not start: " + Files.readString(log), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
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

  /**
   * A free port whose cluster bus port (10000 above it, where a node listens for its peers) is free
   * too: an ephemeral port would often be too high for one (Linux hands out up to 60999).
   */
  private static int freeClusterPort() throws IOException {
    java.util.Random random = new java.util.Random();
    for (int attempt = 0; attempt < 1000; attempt++) {
      int p = 20_000 + random.nextInt(55_535 - 20_000);
      if (bindable(p) && bindable(p + 10_000)) {
        return p;
      }
    }
    throw new IOException("no free port pair for a cluster node");
  }

  private static boolean bindable(int port) {
    try {
      new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
