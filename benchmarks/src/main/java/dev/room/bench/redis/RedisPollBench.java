package dev.room.bench.redis;

import com.sun.management.OperatingSystemMXBean;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Status-poll throughput and Redis's cost per poll on the Redis line, beside the in-memory line in
 * the same run, from 10,000 to 1,000,000 waiting (issue 16).
 *
 * <p>Lines: the in-memory line (the baseline) and every Redis poll path registered in {@link
 * PollVariants} ("before" and "after" when the build keeps the old one callable), each in a room of
 * its own on one {@code redis-server}. Every line gets one held slot and the same waiting tickets;
 * the line grows from one {@code --queued} size to the next (ascending). At each size, every new
 * ticket is first polled once, in line order, from the largest {@code --threads} count (its first
 * poll, which marks it seen: reported on rows of its own, "first polls", one window per line), so
 * that the timed windows measure the steady state, the poll a page makes some sixty times per TTL.
 * Then {@code --threads} threads poll random waiting tickets ({@code Line.poll}, what the status
 * endpoint calls) for {@code --seconds}, in {@code --rounds} rounds whose line order alternates,
 * after a warm-up of each line. Per Redis window, from Redis's own counters:
 *
 * <ul>
 *   <li><b>server µs/poll</b>: {@code INFO commandstats} time of the commands clients sent ÷ polls.
 *       A command a script runs is counted by Redis twice (under its own name and inside the
 *       script's time), so each command's time counts in the share of its calls that clients sent,
 *       from a {@code MONITOR} sample taken during the warm-up (script calls always, commands seen
 *       only inside scripts never; in the first polls' window, script calls only);
 *   <li><b>CPU µs/poll</b>: the main thread's {@code used_cpu_user + used_cpu_sys} ÷ polls (reading
 *       and writing sockets included), and that CPU ÷ wall time (how busy Redis was: near 1 means
 *       Redis bounded the run, well below means the load generator did);
 *   <li><b>round trips/poll</b>: socket reads Redis served ({@code total_reads_processed}) ÷ polls;
 *       a pipelined batch is one read. With several threads Lettuce can coalesce concurrent
 *       commands into one write, so the 1-thread figure is the strict one.
 * </ul>
 *
 * <p>And for every line, <b>client CPU µs/poll</b>: this JVM's CPU time in the window ({@code
 * OperatingSystemMXBean.getProcessCpuTime}: the polling threads, the load generator's own work,
 * Lettuce's threads, JIT and GC) ÷ polls. With Redis's CPU µs/poll it says who bounded a window: on
 * a machine of few cores both share them.
 *
 * <p>It starts its own {@code redis-server} on a free loopback port (no persistence) unless {@code
 * --redis redis://host:port} names one, prints a Markdown table and one {@code @@redis} line per
 * figure for {@code BenchDriver}, and never prints a token. Lettuce is in {@code benchmarks.jar}.
 *
 * <pre>
 * java -Xmx3g -cp benchmarks/target/benchmarks.jar dev.room.bench.redis.RedisPollBench \
 *     --queued 10000,100000,1000000 --threads 1,16 --seconds 3 --rounds 3 [--variants before,after]
 *     [--before-up-to 100000] [--before-jar benchmarks/target/before/room.jar --before-rev REV]
 * </pre>
 */
public final class RedisPollBench {
  /** Tickets live an hour since last heard from: nothing expires during a run. */
  private static final Policy POLICY = new Policy(3_600_000, 0, 1000, 100_000, 60_000, 0);

  static final String MEMORY = "memory";

  private static final int FILL_THREADS = 8;

  /**
   * Polls that failed: Redis did not answer within the line's command timeout, or (after a fill
   * whose timed-out arrival was lost) the ticket was not there.
   */
  private static final LongAdder ERRORS = new LongAdder();

  /** The figures of a window, in the order {@link #window} returns them. */
  private static final String[] METRICS = {
    "polls_per_s", "server_us", "cpu_us", "busy", "round_trips", "commands", "errors", "client_us"
  };

  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private static final Set<String> SCRIPTS =
      Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");
  private static final Set<String> ADMIN =
      Set.of("info", "monitor", "ping", "hello", "select", "auth", "command", "client", "config");

  private RedisPollBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + args[i]);
      }
      o.put(args[i].substring(2), args[i + 1]);
    }
    int[] sizes = ints(o.getOrDefault("queued", "10000,100000,1000000"));
    int[] threadCounts = ints(o.getOrDefault("threads", "1,16"));
    int seconds = Integer.parseInt(o.getOrDefault("seconds", "3"));
    int warmup = Integer.parseInt(o.getOrDefault("warmup", "2"));
    int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
    // The old path's arrivals are the slow part of growing its line: a run may stop it early.
    int beforeUpTo = Integer.parseInt(o.getOrDefault("before-up-to", "" + Integer.MAX_VALUE));
    List<String> variants =
        o.containsKey("variants")
            ? List.of(o.get("variants").split(","))
            : new ArrayList<>(PollVariants.all().keySet());
    for (String v : variants) {
      if (!PollVariants.all().containsKey(v)) {
        throw new IllegalArgumentException(
            "no poll variant " + v + "; registered: " + PollVariants.all().keySet());
      }
    }
    if (o.containsKey("before-jar")) {
      PollVariants.useEarlierBuild(
          Path.of(o.get("before-jar")), o.getOrDefault("before-rev", "an earlier revision"));
    }
    System.out.println("@@redis variants " + String.join(",", variants));
    if (variants.contains(PollVariants.BEFORE)) {
      System.out.println("@@redis before_path " + PollVariants.beforePath());
    }
    Process server = null;
    int port;
    String redisUri = o.get("redis");
    if (redisUri == null) {
      port = freePort();
      server = startRedis(port);
      redisUri = "redis://127.0.0.1:" + port;
    } else {
      port = Integer.parseInt(redisUri.substring(redisUri.lastIndexOf(':') + 1).split("/")[0]);
    }
    try {
      int max = Arrays.stream(sizes).max().orElse(0);
      long[][] tokens = tokens(max);
      String run = UUID.randomUUID().toString().substring(0, 8);
      System.out.printf(
          Locale.ROOT,
          "status polls on %s and %s, %d s windows, %d rounds, %d cores%n",
          MEMORY,
          variants,
          seconds,
          rounds,
          Runtime.getRuntime().availableProcessors());
      System.out.printf(
          Locale.ROOT,
          "| waiting | line | threads | polls/s | server µs/poll | CPU µs/poll | Redis busy"
              + " | round trips/poll | commands/poll | failed polls | client CPU µs/poll |%n"
              + "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n");
      Map<String, Line> lines = new LinkedHashMap<>();
      try {
        lines.put(MEMORY, new InMemoryLine(1));
        for (String v : variants) {
          lines.put(v, PollVariants.all().get(v).open(redisUri, "bench-" + v + "-" + run));
        }
        for (Line line : lines.values()) {
          line.setCapacity(1, System.currentTimeMillis());
          if (!line.tryEnter()) { // the one slot, held for the whole run
            throw new IllegalStateException("a fresh line must admit");
          }
        }
        int filled = 0;
        for (int size : sizes) {
          long f0 = System.nanoTime();
          Map<String, Line> active = new LinkedHashMap<>(lines);
          if (size > beforeUpTo) {
            active.remove(PollVariants.BEFORE);
          }
          grow(active, tokens, filled, size);
          System.out.printf(
              Locale.ROOT,
              "   (%,d → %,d waiting on every line, arrivals on all lines at once, in %.1f s)%n",
              filled,
              size,
              (System.nanoTime() - f0) / 1e9);
          firstPolls(
              active, tokens, filled, size, Arrays.stream(threadCounts).max().getAsInt(), port);
          filled = size;
          measure(active, tokens, size, threadCounts, seconds, warmup, rounds, port);
        }
      } finally {
        for (Line line : lines.values()) {
          line.close();
        }
      }
    } finally {
      if (server != null) {
        server.destroy();
        server.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private static void measure(
      Map<String, Line> lines,
      long[][] tokens,
      int size,
      int[] threadCounts,
      int seconds,
      int warmup,
      int rounds,
      int port)
      throws Exception {
    Map<String, Map<String, Double>> shares = new HashMap<>();
    for (Map.Entry<String, Line> e : lines.entrySet()) {
      boolean redis = !e.getKey().equals(MEMORY);
      for (int threads : threadCounts) {
        if (redis && threads == threadCounts[0]) {
          shares.put(e.getKey(), monitored(e.getValue(), tokens, size, threads, warmup, port));
        } else {
          poll(e.getValue(), tokens, size, threads, warmup);
        }
      }
    }
    List<String> names = new ArrayList<>(lines.keySet());
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < names.size(); k++) {
        String name = names.get(r % 2 == 0 ? k : names.size() - 1 - k);
        for (int threads : threadCounts) {
          double[] x = window(lines.get(name), name, tokens, size, threads, seconds, port, shares);
          results
              .computeIfAbsent(name + ":" + size + ":" + threads, key -> new ArrayList<>())
              .add(x);
        }
      }
    }
    String[] metrics = METRICS;
    for (String name : names) {
      for (int threads : threadCounts) {
        List<double[]> runs = results.get(name + ":" + size + ":" + threads);
        String[] cells = new String[metrics.length];
        for (int m = 0; m < metrics.length; m++) {
          double[] v = new double[runs.size()];
          for (int i = 0; i < v.length; i++) {
            v[i] = runs.get(i)[m];
          }
          Arrays.sort(v);
          double median =
              v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
          System.out.printf(
              Locale.ROOT,
              "@@redis %s:%d:%d:%s %.4f %.4f %.4f %d%n",
              name,
              size,
              threads,
              metrics[m],
              median,
              v[0],
              v[v.length - 1],
              v.length);
          cells[m] =
              Double.isNaN(median)
                  ? "–"
                  : m == 0
                      ? String.format(Locale.ROOT, "%,.0f", median)
                      : String.format(Locale.ROOT, m == 6 ? "%.0f" : "%.2f", median);
        }
        System.out.printf(
            Locale.ROOT,
            "| %,d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |%n",
            size,
            name,
            threads,
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            cells[5],
            cells[6],
            cells[7]);
      }
    }
  }

  /**
   * One measured window: {polls/s, server µs/poll, CPU µs/poll, busy, round trips/poll,
   * commands/poll, failed polls}; NaN for the Redis figures of the in-memory line.
   */
  private static double[] window(
      Line line,
      String name,
      long[][] tokens,
      int size,
      int threads,
      int seconds,
      int port,
      Map<String, Map<String, Double>> shares)
      throws Exception {
    boolean redis = !name.equals(MEMORY);
    long errors0 = ERRORS.sum();
    Stats before = redis ? Stats.read(port) : null;
    long cpu0 = OS.getProcessCpuTime();
    long start = System.nanoTime();
    long polls = poll(line, tokens, size, threads, seconds);
    double elapsed = (System.nanoTime() - start) / 1e9;
    double clientUs = (OS.getProcessCpuTime() - cpu0) / 1e3 / polls;
    double rate = polls / elapsed;
    double errors = ERRORS.sum() - errors0;
    if (!redis) {
      return new double[] {
        rate, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, errors, clientUs
      };
    }
    return figures(
        before,
        Stats.read(port),
        polls,
        elapsed,
        shares.getOrDefault(name, Map.of()),
        1.0,
        errors,
        clientUs);
  }

  /**
   * The window's figures from Redis's counters {@code before} and {@code after} it: a command's
   * time counts in {@code share} of its calls (script calls always), or {@code otherwise} when the
   * sample did not see it.
   */
  private static double[] figures(
      Stats before,
      Stats after,
      long polls,
      double elapsed,
      Map<String, Double> share,
      double otherwise,
      double errors,
      double clientUs) {
    double rate = polls / elapsed;
    double serverUs = 0;
    for (Map.Entry<String, long[]> c : after.commands.entrySet()) {
      String cmd = c.getKey();
      long[] was = before.commands.getOrDefault(cmd, new long[2]);
      long usec = c.getValue()[1] - was[1];
      String base = cmd.contains("|") ? cmd.substring(0, cmd.indexOf('|')) : cmd;
      if (usec <= 0 || ADMIN.contains(base)) {
        continue;
      }
      double clients = SCRIPTS.contains(base) ? 1 : share.getOrDefault(cmd, otherwise);
      serverUs += usec * clients;
    }
    double cpuUs = (after.cpuMicros - before.cpuMicros);
    return new double[] {
      rate,
      serverUs / polls,
      cpuUs / polls,
      cpuUs / (elapsed * 1e6),
      (after.reads - before.reads) / (double) polls,
      (after.commandsProcessed - before.commandsProcessed) / (double) polls,
      errors,
      clientUs
    };
  }

  /**
   * Polls tickets {@code from} to {@code to} (exclusive) once each, in line order, from {@code
   * threads} threads, one line after the other: each ticket's first poll, so that the windows after
   * it measure seen tickets' polls. Prints each line's first polls as rows of their own ({@code
   * <line>+first} in the {@code @@redis} lines), the server time counting script calls only.
   */
  private static void firstPolls(
      Map<String, Line> lines, long[][] tokens, int from, int to, int threads, int port)
      throws Exception {
    for (Map.Entry<String, Line> e : lines.entrySet()) {
      boolean redis = !e.getKey().equals(MEMORY);
      Line line = e.getValue();
      long errors0 = ERRORS.sum();
      Stats before = redis ? Stats.read(port) : null;
      long cpu0 = OS.getProcessCpuTime();
      long start = System.nanoTime();
      AtomicInteger next = new AtomicInteger(from);
      LongAdder done = new LongAdder();
      List<Thread> workers = new ArrayList<>();
      for (int w = 0; w < threads; w++) {
        Thread th =
            new Thread(
                () -> {
                  int i;
                  while ((i = next.getAndIncrement()) < to) {
                    try {
                      long o =
                          line.poll(tokens[0][i], tokens[1][i], System.currentTimeMillis(), POLICY);
                      if (Outcome.kind(o) == Outcome.WAITING) {
                        done.increment();
                      } else {
                        ERRORS.increment();
                      }
                    } catch (RuntimeException unavailable) {
                      ERRORS.increment();
                    }
                  }
                },
                "first-" + e.getKey() + "-" + w);
        workers.add(th);
        th.start();
      }
      for (Thread th : workers) {
        th.join();
      }
      double elapsed = (System.nanoTime() - start) / 1e9;
      long polls = done.sum();
      double clientUs = (OS.getProcessCpuTime() - cpu0) / 1e3 / polls;
      double errors = ERRORS.sum() - errors0;
      double[] x =
          redis
              ? figures(before, Stats.read(port), polls, elapsed, Map.of(), 0.0, errors, clientUs)
              : new double[] {
                polls / elapsed,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                errors,
                clientUs
              };
      String name = e.getKey() + "+first";
      String[] metrics = METRICS;
      for (int m = 0; m < metrics.length; m++) {
        System.out.printf(
            Locale.ROOT,
            "@@redis %s:%d:%d:%s %.4f %.4f %.4f %d%n",
            name,
            to,
            threads,
            metrics[m],
            x[m],
            x[m],
            x[m],
            1);
      }
      System.out.printf(
          Locale.ROOT,
          "| %,d | %s (first polls of %,d) | %d | %,.0f | %s | %s | %s | %s | %s | %.0f | %s |%n",
          to,
          e.getKey(),
          polls,
          threads,
          x[0],
          cell(x[1]),
          cell(x[2]),
          cell(x[3]),
          cell(x[4]),
          cell(x[5]),
          x[6],
          cell(x[7]));
    }
  }

  private static String cell(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2f", v);
  }

  /**
   * A warm-up window with a {@code MONITOR} sample of its first half second: for each command, the
   * share of its calls clients sent (the rest ran inside scripts). Only command names are read.
   */
  private static Map<String, Double> monitored(
      Line line, long[][] tokens, int size, int threads, int seconds, int port) throws Exception {
    Map<String, int[]> seen = new HashMap<>(); // {from clients, from scripts}
    Thread sampler =
        new Thread(
            () -> {
              try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(200);
                s.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
                BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                long end = System.nanoTime() + 500_000_000L;
                while (System.nanoTime() < end) {
                  String l;
                  try {
                    l = in.readLine();
                  } catch (SocketTimeoutException idle) {
                    continue;
                  }
                  if (l == null) {
                    break;
                  }
                  int close = l.indexOf("] \"");
                  if (!l.startsWith("+") || close < 0) {
                    continue;
                  }
                  int from = close + 3;
                  int to = l.indexOf('"', from);
                  String cmd = l.substring(from, to).toLowerCase(Locale.ROOT);
                  boolean script = l.substring(l.indexOf('['), close).contains("lua");
                  seen.computeIfAbsent(cmd, c -> new int[2])[script ? 1 : 0]++;
                }
              } catch (IOException e) {
                System.out.println("   (MONITOR sample failed: " + e.getMessage() + ")");
              }
            },
            "monitor");
    sampler.start();
    poll(line, tokens, size, threads, Math.max(1, seconds));
    sampler.join(5_000);
    Map<String, Double> share = new HashMap<>();
    for (Map.Entry<String, int[]> e : seen.entrySet()) {
      int[] n = e.getValue();
      share.put(e.getKey(), n[0] / (double) (n[0] + n[1]));
    }
    return share;
  }

  /** Polls random waiting tickets among the first {@code size} from {@code threads} threads. */
  private static long poll(Line line, long[][] tokens, int size, int threads, int seconds)
      throws InterruptedException {
    LongAdder done = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger failed = new AtomicInteger();
    long errors0 = ERRORS.sum();
    CountDownLatch finished = new CountDownLatch(threads);
    for (int w = 0; w < threads; w++) {
      long seed = 0x5EED_0000L + w + size;
      Thread th =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed);
                long n = 0;
                try {
                  while (!stop.get()) {
                    int i = random.nextInt(size);
                    long o;
                    try {
                      o = line.poll(tokens[0][i], tokens[1][i], System.currentTimeMillis(), POLICY);
                    } catch (RuntimeException unavailable) {
                      // a command timeout on an oversubscribed machine: counted, not fatal
                      ERRORS.increment();
                      continue;
                    }
                    if (Outcome.kind(o) != Outcome.WAITING) {
                      failed.set(Outcome.kind(o) + 1);
                      ERRORS.increment();
                      continue;
                    }
                    n++;
                  }
                } finally {
                  done.add(n);
                  finished.countDown();
                }
              },
              "poller-" + w);
      th.start();
    }
    TimeUnit.SECONDS.sleep(seconds); // the measurement window
    stop.set(true);
    if (!finished.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("pollers did not stop");
    }
    long polls = done.sum();
    if (failed.get() != 0 && ERRORS.sum() - errors0 > polls / 10) {
      throw new IllegalStateException("polls missed: kind " + (failed.get() - 1));
    }
    return polls;
  }

  /**
   * Queues tickets {@code from} to {@code to} (exclusive) on every line at once: one thread for the
   * in-memory line, {@value #FILL_THREADS} per Redis line, so the Redis lines' arrivals overlap
   * (one at a time, a million arrivals would take many minutes).
   */
  private static void grow(Map<String, Line> lines, long[][] tokens, int from, int to)
      throws InterruptedException {
    AtomicInteger failed = new AtomicInteger(-1);
    List<Thread> workers = new ArrayList<>();
    for (Map.Entry<String, Line> e : lines.entrySet()) {
      Line line = e.getValue();
      AtomicInteger next = new AtomicInteger(from);
      int threads = e.getKey().equals(MEMORY) ? 1 : FILL_THREADS;
      for (int w = 0; w < threads; w++) {
        Thread th =
            new Thread(
                () -> {
                  int i;
                  while ((i = next.getAndIncrement()) < to && failed.get() < 0) {
                    for (int attempt = 1; ; attempt++) {
                      long now = System.currentTimeMillis();
                      try {
                        long o = line.arrive(tokens[0][i], tokens[1][i], "", false, now, POLICY);
                        // a retried arrival may find its ticket queued by the timed-out one
                        if (Outcome.kind(o) != Outcome.WAITING && attempt == 1) {
                          failed.set(i);
                        }
                        break;
                      } catch (RuntimeException unavailable) {
                        if (attempt == 5) { // a command timeout, 5 times over: give up
                          failed.set(i);
                          break;
                        }
                      }
                    }
                  }
                },
                "fill-" + e.getKey() + "-" + w);
        workers.add(th);
        th.start();
      }
    }
    for (Thread th : workers) {
      th.join();
    }
    if (failed.get() >= 0) {
      throw new IllegalStateException("ticket " + failed.get() + " was not queued");
    }
    for (Map.Entry<String, Line> e : lines.entrySet()) {
      if (e.getValue().waiting() != to) { // said, not fatal: the polls' misses show it too
        System.out.printf(
            "   (%s: %,d waiting, not %,d)%n", e.getKey(), e.getValue().waiting(), to);
      }
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

  private static int[] ints(String list) {
    return Arrays.stream(list.split(",")).map(String::strip).mapToInt(Integer::parseInt).toArray();
  }

  /** What Redis counted so far: from one {@code INFO all} over a plain socket. */
  static final class Stats {
    long commandsProcessed;
    long reads;
    double cpuMicros;
    final Map<String, long[]> commands = new HashMap<>(); // name → {calls, usec}

    static Stats read(int port) throws IOException {
      String info = info(port, "INFO all\r\n");
      Stats s = new Stats();
      s.commandsProcessed = (long) field(info, "total_commands_processed:");
      s.reads = (long) field(info, "total_reads_processed:");
      double user = field(info, "used_cpu_user_main_thread:");
      double sys = field(info, "used_cpu_sys_main_thread:");
      if (user + sys == 0) { // older servers: the whole process
        user = field(info, "used_cpu_user:");
        sys = field(info, "used_cpu_sys:");
      }
      s.cpuMicros = (user + sys) * 1e6;
      for (String line : info.split("\r\n")) {
        if (line.startsWith("cmdstat_")) {
          String name = line.substring("cmdstat_".length(), line.indexOf(':'));
          s.commands.put(
              name, new long[] {(long) field(line, "calls="), (long) field(line, "usec=")});
        }
      }
      return s;
    }
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

  /** The number after {@code name} up to the next ',' or line end; 0 when absent. */
  private static double field(String text, String name) {
    int at = text.indexOf(name);
    if (at < 0) {
      return 0;
    }
    int from = at + name.length();
    int to = from;
    while (to < text.length() && ",\r\n".indexOf(text.charAt(to)) < 0) {
      to++;
    }
    return Double.parseDouble(text.substring(from, to).strip());
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
