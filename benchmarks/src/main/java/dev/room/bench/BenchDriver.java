package dev.room.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs every benchmark in sequence and writes {@code RESULTS.md} and the scaling chart.
 *
 * <p>Order: the JMH engine runs (1 thread with {@code -prof gc} including the scaling sizes, 2
 * threads, the single-shot line changes), then {@link HeapFootprint} and {@link HttpBench} in child
 * JVMs. Nothing runs concurrently with anything else. {@code --quick} runs every benchmark once
 * with short iterations (for CI); otherwise the full run takes about ten minutes on 2 cores.
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
    heap.addAll(
        child(HeapFootprint.class, List.of("-Xms3g", "-Xmx3g"), List.of("10000000", "heap10m")));

    System.out.println("== HTTP on loopback");
    List<String> httpArgs =
        quick
            ? List.of("--seconds", "2", "--warmup", "1", "--rounds", "1")
            : List.of("--seconds", "3", "--warmup", "5", "--rounds", "12");
    List<String[]> http = child(HttpBench.class, List.of("-Xms1g", "-Xmx1g"), httpArgs);

    double minutes = (System.nanoTime() - start) / 60e9;
    Report report =
        new Report(quick, machine, Machine.loadAverage(), command, minutes, engine, heap, http);
    Files.writeString(out, report.markdown(chart.getFileName().toString()), StandardCharsets.UTF_8);
    ScalingChart.write(chart, engine);
    System.out.printf("== wrote %s and %s in %.1f min%n", out, chart, minutes);
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
