package dev.room.bench.redis;

import dev.room.engine.InMemoryLine;
import dev.room.redis.RedisLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Status-poll throughput on the Redis line beside the in-memory line, and the Redis round trips one
 * poll costs.
 *
 * <p>Each line gets one held slot and {@code --queued} waiting tickets; then {@code --threads}
 * threads poll random tickets ({@code Line.poll}, exactly what the status endpoint calls) for
 * {@code --seconds} after a warm-up of the same length. The Redis room is polled through two
 * instances of the line on it: "Redis, batched" as the line runs by default (the polls waiting
 * for Redis together go as one script, {@code ops/polls.lua}) and "Redis, one script a poll"
 * ({@code RedisLine.Builder.batchPolls(false)}, {@code ops/poll.lua}: the path before issue 16),
 * interleaved thread count by thread count, so new ÷ old is measured in one run. Round trips per
 * poll are Redis's own count of EVALSHA calls ({@code INFO commandstats}) over the polls made,
 * beside the commands the scripts run inside Redis per poll, the scripts' server time per poll
 * ({@code usec} of EVALSHA ÷ polls) and Redis's whole CPU time per poll ({@code used_cpu_sys +
 * used_cpu_user}, network included). Every line runs in the same JVM and the same run, so the
 * in-memory figures are the baseline. {@code --paths} picks the Redis rows ({@code old,new},
 * the default, or one of them). It starts its own {@code redis-server}
 * on a free loopback port (no persistence) unless {@code --redis redis://host:port} names one; it
 * never prints a token.
 *
 * <p>Lettuce is an optional dependency of the library, so it is not in {@code benchmarks.jar}; add
 * it to the class path (from the repository root):
 *
 * <pre>
 * mvn -B -DskipTests install
 * mvn -B -f benchmarks/pom.xml -DskipTests package
 * mvn -q dependency:build-classpath -Dmdep.outputFile=target/room.cp
 * java -cp benchmarks/target/benchmarks.jar:$(cat target/room.cp) \
 *     dev.room.bench.redis.RedisPollBench --queued 10000 --threads 1,4,16 --seconds 5
 * </pre>
 */
public final class RedisPollBench {
  // A TTL of an hour: filling a million on a loaded machine takes minutes.
  private static final Policy POLICY = new Policy(3_600_000, 0, 1000, 100_000, 60_000, 0);

  private RedisPollBench() {}

  public static void main(String[] args) throws Exception {
    int queued = 10_000;
    int seconds = 5;
    String threadList = "1,4,16";
    String redisUri = null;
    String paths = "old,new";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--queued" -> queued = Integer.parseInt(args[i + 1]);
        case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
        case "--threads" -> threadList = args[i + 1];
        case "--redis" -> redisUri = args[i + 1];
        case "--paths" -> paths = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    try {
      Class.forName("io.lettuce.core.RedisClient");
    } catch (ClassNotFoundException e) {
      System.err.println("Lettuce is not on the class path; see this class's Javadoc to run it.");
      System.exit(2);
    }
    Process server = null;
    int port = 0;
    if (redisUri == null) {
      port = freePort();
      server = startRedis(port);
      redisUri = "redis://127.0.0.1:" + port;
    } else {
      port = Integer.parseInt(redisUri.substring(redisUri.lastIndexOf(':') + 1));
    }
    try {
      long[][] tokens = tokens(queued);
      System.out.printf(
          Locale.ROOT,
          "status polls, %d waiting, %d s per run, %d cores%n%n",
          queued,
          seconds,
          Runtime.getRuntime().availableProcessors());
      System.out.printf(
          Locale.ROOT,
          "| line | threads | polls/s | mean µs/poll | round trips/poll | commands/poll in scripts"
              + " | Redis script µs/poll | Redis CPU µs/poll |%n");
      System.out.printf(Locale.ROOT, "|---|---:|---:|---:|---:|---:|---:|---:|%n");
      InMemoryLine memory = new InMemoryLine(1);
      fill(memory, tokens);
      String room = "bench-" + UUID.randomUUID().toString().substring(0, 8);
      RedisLine redis = RedisLine.builder(redisUri, room).build();
      RedisLine single = RedisLine.builder(redisUri, room).batchPolls(false).build();
      redis.setCapacity(1, System.currentTimeMillis());
      long filling = System.nanoTime();
      fill(redis, tokens);
      System.err.printf(
          Locale.ROOT, "filled %d in %.0f s%n", queued, (System.nanoTime() - filling) / 1e9);
      for (String t : threadList.split(",")) {
        int threads = Integer.parseInt(t.strip());
        run("in-memory", memory, tokens, threads, seconds, 0);
        if (paths.contains("old")) {
          run("Redis, one script a poll", single, tokens, threads, seconds, port);
        }
        if (paths.contains("new")) {
          run("Redis, batched", redis, tokens, threads, seconds, port);
        }
      }
      single.close();
      redis.close();
    } finally {
      if (server != null) {
        server.destroy();
        server.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private static void run(
      String name, Line line, long[][] tokens, int threads, int seconds, int port)
      throws Exception {
    poll(line, tokens, threads, seconds); // warm-up
    long[] before = port == 0 ? null : stats(port);
    long start = System.nanoTime();
    long polls = poll(line, tokens, threads, seconds);
    double elapsed = (System.nanoTime() - start) / 1e9;
    double rate = polls / elapsed;
    String trips = "–";
    String commands = "–";
    String serverMicros = "–";
    String cpuMicros = "–";
    if (port != 0) {
      long[] after = stats(port);
      long calls = after[1] - before[1];
      // A round trip is one command from the client: here only EVALSHA (the heartbeat's are a
      // handful per run). Commands a script runs inside Redis are counted apart; our INFO calls
      // fall inside the window.
      trips = String.format(Locale.ROOT, "%.3f", calls / (double) polls);
      commands =
          String.format(Locale.ROOT, "%.1f", (after[0] - before[0] - 2 - calls) / (double) polls);
      serverMicros = String.format(Locale.ROOT, "%.2f", (after[2] - before[2]) / (double) polls);
      cpuMicros = String.format(Locale.ROOT, "%.2f", (after[3] - before[3]) / (double) polls);
    }
    System.out.printf(
        Locale.ROOT,
        "| %s | %d | %,.0f | %.1f | %s | %s | %s | %s |%n",
        name,
        threads,
        rate,
        threads * 1e6 / rate,
        trips,
        commands,
        serverMicros,
        cpuMicros);
  }

  /** Polls random waiting tickets from {@code threads} threads for {@code seconds}. */
  private static long poll(Line line, long[][] tokens, int threads, int seconds)
      throws InterruptedException {
    LongAdder done = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch finished = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < threads; w++) {
      long seed = 0x5EED_0000L + w;
      Thread th =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed);
                long n = 0;
                try {
                  while (!stop.get()) {
                    int i = random.nextInt(tokens[0].length);
                    long o =
                        line.poll(tokens[0][i], tokens[1][i], System.currentTimeMillis(), POLICY);
                    if (Outcome.kind(o) != Outcome.WAITING) {
                      throw new IllegalStateException("a poll missed: kind " + Outcome.kind(o));
                    }
                    n++;
                  }
                } finally {
                  done.add(n);
                  finished.countDown();
                }
              },
              "poller-" + w);
      workers.add(th);
      th.start();
    }
    TimeUnit.SECONDS.sleep(seconds); // the measurement window
    stop.set(true);
    if (!finished.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("pollers did not stop");
    }
    return done.sum();
  }

  /**
   * One held slot, then every token arrives, from 8 threads (a Redis line's arrivals then share
   * its connection's pipeline), then each is polled once, so that every ticket is as a waiting
   * page's is after its first poll.
   */
  private static void fill(Line line, long[][] tokens) throws InterruptedException {
    if (!line.tryEnter()) {
      throw new IllegalStateException("a fresh line must admit");
    }
    long now = System.currentTimeMillis();
    int n = tokens[0].length;
    int threads = 8;
    List<Thread> workers = new ArrayList<>();
    List<RuntimeException> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int w = 0; w < threads; w++) {
      int from = (int) ((long) n * w / threads);
      int to = (int) ((long) n * (w + 1) / threads);
      Thread th =
          new Thread(
              () -> {
                try {
                  for (int i = from; i < to; i++) {
                    long o = line.arrive(tokens[0][i], tokens[1][i], "", false, now, POLICY);
                    if (Outcome.kind(o) != Outcome.WAITING) {
                      throw new IllegalStateException("ticket " + i + " was not queued");
                    }
                  }
                  for (int i = from; i < to; i++) {
                    long o = line.poll(tokens[0][i], tokens[1][i], now, POLICY);
                    if (Outcome.kind(o) != Outcome.WAITING) {
                      throw new IllegalStateException("ticket " + i + " is not waiting");
                    }
                  }
                } catch (RuntimeException e) {
                  failures.add(e);
                }
              },
              "filler-" + w);
      workers.add(th);
      th.start();
    }
    for (Thread th : workers) {
      th.join();
    }
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
  }

  private static long[][] tokens(int n) {
    SplittableRandom random = new SplittableRandom(0x5EED_0001L);
    long[][] t = new long[2][n];
    for (int i = 0; i < n; i++) {
      t[0][i] = random.nextLong();
      t[1][i] = random.nextLong();
    }
    return t;
  }

  /**
   * {total commands processed, EVALSHA calls, EVALSHA µs, Redis CPU µs}, read over a plain socket.
   */
  private static long[] stats(int port) throws IOException {
    String info =
        info(port, "INFO stats\r\n")
            + info(port, "INFO commandstats\r\n")
            + info(port, "INFO cpu\r\n");
    long total = field(info, "total_commands_processed:", "\r\n");
    long calls = 0;
    long usec = 0;
    int at = info.indexOf("cmdstat_evalsha:");
    if (at >= 0) {
      String line = info.substring(at, info.indexOf("\r\n", at));
      calls = field(line, "calls=", ",");
      usec = field(line, "usec=", ",");
    }
    long cpu = Math.round(1e6 * (seconds(info, "used_cpu_sys:") + seconds(info, "used_cpu_user:")));
    return new long[] {total, calls, usec, cpu};
  }

  private static double seconds(String text, String name) {
    int at = text.indexOf(name);
    if (at < 0) {
      return 0;
    }
    int from = at + name.length();
    return Double.parseDouble(text.substring(from, text.indexOf("\r\n", from)).strip());
  }

  private static String info(int port, String command) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      OutputStream out = s.getOutputStream();
      out.write(command.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder header = new StringBuilder();
      int c;
      while ((c = in.read()) != '\n') {
        header.append((char) c);
      }
      int length = Integer.parseInt(header.substring(1).strip());
      return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
  }

  private static long field(String text, String name, String end) {
    int at = text.indexOf(name);
    if (at < 0) {
      return 0;
    }
    int from = at + name.length();
    int to = text.indexOf(end, from);
    return Long.parseLong(text.substring(from, to < 0 ? text.length() : to).strip());
  }

  private static Process startRedis(int port) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("room-bench-redis");
    Process p =
        new ProcessBuilder(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        info(port, "INFO server\r\n");
        return p;
      } catch (IOException notYet) {
        TimeUnit.MILLISECONDS.sleep(20); // waiting for a process to listen
      }
    }
    p.destroyForcibly();
    throw new IOException("redis-server did not start on port " + port);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
