package dev.room.bench;

import dev.room.bench.redis.RedisPollBench;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs every benchmark in sequence and writes {@code RESULTS.md} and the scaling chart.
 *
 * <p>Order: the JMH engine runs (1 thread with {@code -prof gc} including the scaling sizes, 2
 * threads, the single-shot line changes, {@code removeToken} at the scaling sizes), then {@link
 * HeapFootprint} (1M; 10M in a 2 GB heap), {@link HttpBench}, {@link RedisPollBench} (10k to 1M
 * waiting, every registered Redis poll path beside the in-memory line) and {@link SoakBenchmark}
 * (ten minutes; 45 s with {@code --quick}) in child JVMs. Nothing runs concurrently with anything
 * else. {@code --quick} runs every benchmark once with short iterations (for CI, about 10 minutes);
 * otherwise the full run takes about 30 minutes on 2 cores. The report opens with issue 16's goal
 * table ({@link Issue16Report}).
 *
 * <pre>
 * make bench         # full: writes benchmarks/RESULTS.md and benchmarks/scaling.png
 * make bench-quick   # quick: writes benchmarks/target/quick/RESULTS.md
 * java -cp benchmarks/target/benchmarks.jar dev.room.bench.BenchDriver [--quick]
 *     [--out FILE] [--chart FILE] [--command "how it was started"]
 * </pre>
 */
public final class BenchDriver {
  private BenchDriver() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = HttpBench.options(args);
    boolean quick = opt.containsKey("quick");
    Path out = Path.of(opt.getOrDefault("out", "benchmarks/RESULTS.md")).toAbsolutePath();
    Path chart = Path.of(opt.getOrDefault("chart", out.resolveSibling("scaling.png").toString()));
    String command =
        opt.getOrDefault(
            "command",
            "java -cp benchmarks.jar "
                + BenchDriver.class.getName()
                + " "
                + String.join(" ", args));
    Path logDir = Files.createDirectories(Path.of("benchmarks", "target", "bench-logs"));
    Files.createDirectories(out.getParent());

    Machine machine = Machine.describe();
    long start = System.nanoTime();

    List<EngineRuns.Row> engine = new EngineRuns(quick, logDir).runAll();

    System.out.println("== heap footprint");
    List<String[]> heap =
        new ArrayList<>(
            child(HeapFootprint.class, List.of("-Xms2g", "-Xmx2g"), List.of("1000000")));
    // 10 million queued in a 2 GB heap: the probe itself under that limit; only if it does not
    // fit, again with room to spare for the per-client figure.
    boolean fits = true;
    String twoGb = "-Xmx" + Issue16Report.TWO_GB_MIB + "m";
    List<String> heapJvm = List.of("-Xms" + Issue16Report.TWO_GB_MIB + "m", twoGb, OOM_EXIT);
    try {
      heap.addAll(child(HeapFootprint.class, heapJvm, List.of("10000000", "heap10m")));
    } catch (IllegalStateException tooBig) {
      fits = false;
      heap.addAll(
          child(HeapFootprint.class, List.of("-Xms3g", "-Xmx3g"), List.of("10000000", "heap10m")));
    }

    // The lookup row's floor on this machine: one dependent read over the span of 10 million
    // records (640 MB), and the engine's poll beside a model of the one-miss design.
    System.out.println("== one memory read, and the engine beside the one-miss model");
    List<String> floorJvm =
        List.of("-Xms3g", "-Xmx3g", "-XX:+UseTransparentHugePages", "-XX:+AlwaysPreTouch");
    List<String> floorArgs = List.of(quick ? "10000000" : "160000000");
    List<String> directJvm = List.of("-Xms3500m", "-Xmx3500m", "-XX:+UseTransparentHugePages");
    List<String> directArgs = List.of(quick ? "100000" : "10000000");
    List<String[]> floor = new ArrayList<>(child(MemoryFloor.class, floorJvm, floorArgs));
    floor.addAll(child(DirectLookup.class, directJvm, directArgs));

    System.out.println("== HTTP on loopback");
    List<String> httpArgs =
        quick
            ? List.of("--seconds", "2", "--warmup", "1", "--rounds", "1")
            : List.of("--seconds", "3", "--warmup", "5", "--rounds", "8");
    List<String[]> http = child(HttpBench.class, List.of("-Xms1g", "-Xmx1g"), httpArgs);

    System.out.println("== Redis line: status polls beside the in-memory line (issue 16)");
    List<String> redisArgs =
        quick
            ? List.of(
                "--queued",
                "10000,100000",
                "--threads",
                "1,16",
                "--seconds",
                "1",
                "--warmup",
                "1",
                "--rounds",
                "1")
            : List.of(
                "--queued",
                "10000,100000,1000000",
                "--threads",
                "1,16,64",
                "--seconds",
                "2",
                "--warmup",
                "2",
                "--rounds",
                "3",
                "--before-up-to", // the old path at 100k is the issue's "now"; its 1M fill is
                // minutes
                "100000");
    Path beforeJar = Path.of("benchmarks/target/before/room.jar");
    if (Files.isRegularFile(beforeJar)) { // make bench-before-jar
      redisArgs = new ArrayList<>(redisArgs);
      redisArgs.addAll(
          List.of(
              "--before-jar",
              beforeJar.toString(),
              "--before-rev",
              Files.readString(beforeJar.resolveSibling("REV")).strip()));
    }
    List<String> redisJvm = List.of("-Xmx3g");
    RedisResults redis;
    if (Machine.command("redis-server", "--version").equals("unknown")) {
      redis =
          new RedisResults(
              List.of(),
              "`redis-server` is not on the PATH (`apt-get install redis-server`), so the Redis"
                  + " rows were not measured.");
    } else {
      try {
        redis = new RedisResults(child(RedisPollBench.class, redisJvm, redisArgs), null);
      } catch (IllegalStateException e) {
        redis =
            new RedisResults(
                List.of(), "The Redis benchmark failed (" + e.getMessage() + "); see its output.");
      }
    }

    System.out.println("== soak: keep the origin busy (issue 16)");
    // Arrivals at 100 a second outrun what 20 slots of 50-500 ms serve (about 70 a second), so a
    // line forms and the utilisation is measured while it waits (6,000 over 300 s never queued).
    List<String> soakArgs =
        quick
            ? List.of("--seconds", "45", "--browsers", "400", "--arrive-seconds", "5")
            : List.of("--seconds", "600", "--browsers", "6000", "--arrive-seconds", "60");
    List<String> soakJvm = List.of("-Xmx1g");
    List<String[]> soak = child(SoakBenchmark.class, soakJvm, soakArgs);

    double minutes = (System.nanoTime() - start) / 60e9;
    Map<String, String> commands = new LinkedHashMap<>();
    commands.put("soak", java(soakJvm, SoakBenchmark.class, soakArgs));
    commands.put("lookup", EngineRuns.jmh(quick, "StatusLookupBenchmark", true));
    commands.put("removeToken", EngineRuns.jmh(quick, "RemoveTokenScalingBenchmark", false));
    commands.put("heap", java(heapJvm, HeapFootprint.class, List.of("10000000", "heap10m")));
    commands.put("floor", java(floorJvm, MemoryFloor.class, floorArgs));
    commands.put("direct", java(directJvm, DirectLookup.class, directArgs));
    commands.put("redis", java(redisJvm, RedisPollBench.class, redisArgs));
    Report report =
        new Report(quick, machine, Machine.loadAverage(), command, minutes, engine, heap, http);
    Issue16Report issue16 =
        new Issue16Report(
            quick,
            report.engine(),
            report.heap1m(),
            report.heap10m(),
            fits,
            values(soak, "soak"),
            redis,
            commands,
            values(floor, "floor"),
            values(floor, "direct"));
    Files.writeString(
        out,
        report.markdown(chart.getFileName().toString(), issue16.markdown())
            + issue16.redisSection(commands.get("redis"))
            + SoakBenchmark.markdown(soak, soakArgs),
        StandardCharsets.UTF_8);
    ScalingChart.write(chart, engine, redis);
    System.out.printf("== wrote %s and %s in %.1f min%n", out, chart, minutes);
  }

  private static final String OOM_EXIT = "-XX:+ExitOnOutOfMemoryError";

  /** The command line that runs {@code main} alone, as the report shows it. */
  static String java(List<String> jvmArgs, Class<?> main, List<String> args) {
    return "java "
        + String.join(" ", jvmArgs)
        + " -cp benchmarks/target/benchmarks.jar "
        + main.getName()
        + " "
        + String.join(" ", args);
  }

  /** The {@code @@kind name value} lines of one kind as a map of name to value. */
  static Map<String, String> values(List<String[]> lines, String kind) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String[] l : lines) {
      if (l[0].equals(kind)) {
        m.put(l[1], l[2]);
      }
    }
    return m;
  }

  /**
   * Runs {@code main} in a child JVM on this JVM's class path, echoes its output and returns its
   * {@code @@kind name value} lines split in three.
   */
  static List<String[]> child(Class<?> main, List<String> jvmArgs, List<String> args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmArgs);
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String[]> results = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        System.out.println("   " + line);
        if (line.startsWith("@@")) {
          String[] f = line.substring(2).split(" ", 3);
          results.add(new String[] {f[0], f[1], f.length > 2 ? f[2] : ""});
        }
      }
    }
    if (!p.waitFor(20, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException(
          main.getSimpleName() + " failed (exit " + p.exitValue() + ")");
    }
    return results;
  }
}
