package dev.room.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH engine benchmarks through JMH's Java API and keeps what the report needs.
 *
 * <p>Four runs: every steady-state benchmark at 1 thread with the GC profiler, including the
 * scaling sizes (10,000 to 10,000,000); the same at 2 threads at 100,000 queued; the line-changing
 * single-shot benchmarks at 1 thread; {@code removeToken} at the scaling sizes. JMH forks a fresh
 * JVM per benchmark, so runs do not share JIT or heap state.
 */
final class EngineRuns {
  static final String STEADY =
      "^dev\\.room\\.bench\\.(FastPathBenchmark|StatusLookupBenchmark|GhostPositionBenchmark"
          + "|QueueReadBenchmark|RoomReadBenchmark)\\.";
  static final String CHANGES = "^dev\\.room\\.bench\\.LineChangeBenchmark\\.";
  static final String[] SCALING = {"10000", "100000", "1000000", "10000000"};
  static final String REMOVALS = "^dev\\.room\\.bench\\.RemoveTokenScalingBenchmark\\.";

  /**
   * One benchmark configuration's result.
   *
   * @param name {@code Class.method}
   * @param threads benchmark threads
   * @param queued the {@code queued} parameter, or 0 when the benchmark has none
   * @param nanos time per operation over measurement iterations
   * @param bytesPerOp allocation per operation from the GC profiler, NaN when not measured
   */
  record Row(String name, int threads, int queued, Figure nanos, double bytesPerOp) {}

  private final boolean quick;
  private final Path logDir;

  EngineRuns(boolean quick, Path logDir) {
    this.quick = quick;
    this.logDir = logDir;
  }

  /**
   * The JMH command line that runs one of these benchmarks alone with this run's settings, at the
   * scaling sizes: {@code steady} for the average-time runs with the GC profiler, else the
   * single-shot {@code removeToken} run.
   */
  static String jmh(boolean quick, String benchmark, boolean steady) {
    String sizes = String.join(",", SCALING);
    return steady
        ? "java -jar benchmarks/target/benchmarks.jar %s -p queued=%s -t 1 -f 1 -prof gc %s"
            .formatted(
                benchmark, sizes, quick ? "-wi 1 -w 300ms -i 2 -r 200ms" : "-wi 3 -w 1s -i 6 -r 1s")
        : "java -jar benchmarks/target/benchmarks.jar %s -p queued=%s -t 1 -f 1 %s"
            .formatted(benchmark, sizes, quick ? "-wi 3 -i 2" : "-wi 60 -i 30");
  }

  List<Row> runAll() throws RunnerException {
    List<Row> rows = new ArrayList<>();
    rows.addAll(steady(1, SCALING));
    rows.addAll(steady(2, new String[] {"100000"}));
    rows.addAll(changes());
    rows.addAll(removals());
    return rows;
  }

  private List<Row> steady(int threads, String[] queued) throws RunnerException {
    ChainedOptionsBuilder b =
        new OptionsBuilder()
            .include(STEADY)
            .threads(threads)
            .param("queued", queued)
            .addProfiler(GCProfiler.class)
            .forks(1)
            .timeUnit(TimeUnit.NANOSECONDS);
    if (quick) {
      b.warmupIterations(1)
          .warmupTime(TimeValue.milliseconds(300))
          .measurementIterations(2)
          .measurementTime(TimeValue.milliseconds(200));
    } else {
      b.warmupIterations(3)
          .warmupTime(TimeValue.seconds(1))
          .measurementIterations(6)
          .measurementTime(TimeValue.seconds(1));
    }
    return run(b, "engine-" + threads + "t", true);
  }

  private List<Row> changes() throws RunnerException {
    ChainedOptionsBuilder b =
        new OptionsBuilder()
            .include(CHANGES)
            .threads(1)
            .forks(1)
            .timeUnit(TimeUnit.NANOSECONDS)
            .warmupIterations(quick ? 3 : 15)
            .measurementIterations(quick ? 2 : 25);
    return run(b, "engine-changes", false);
  }

  /** {@code removeToken} at every scaling size, on a line built once per fork. */
  private List<Row> removals() throws RunnerException {
    ChainedOptionsBuilder b =
        new OptionsBuilder()
            .include(REMOVALS)
            .threads(1)
            .forks(1)
            .param("queued", SCALING)
            .timeUnit(TimeUnit.NANOSECONDS)
            // 1,000 removals an iteration: ten warm-ups left C2 unfinished on a loaded machine
            .warmupIterations(quick ? 3 : 60)
            .measurementIterations(quick ? 2 : 30);
    return run(b, "engine-removals", false);
  }

  private List<Row> run(ChainedOptionsBuilder b, String name, boolean gc) throws RunnerException {
    String log = logDir.resolve(name + ".log").toString();
    System.out.println("== JMH " + name + " (log: " + log + ")");
    Collection<RunResult> results = new Runner(b.output(log).build()).run();
    List<Row> rows = new ArrayList<>();
    for (RunResult r : results) {
      String benchmark = r.getParams().getBenchmark();
      String shortName = benchmark.substring("dev.room.bench.".length());
      String q = r.getParams().getParam("queued");
      Figure nanos = figure(r);
      double bytes = gc ? allocation(r.getSecondaryResults()) : Double.NaN;
      Row row =
          new Row(
              shortName,
              r.getParams().getThreads(),
              q == null ? 0 : Integer.parseInt(q),
              nanos,
              bytes);
      System.out.printf(
          "   %-42s t=%d queued=%-8s %s  %s%n",
          shortName,
          row.threads(),
          q == null ? "-" : q,
          nanos.timeWithSpread(),
          Double.isNaN(bytes) ? "" : "%.2f B/op".formatted(bytes));
      rows.add(row);
    }
    return rows;
  }

  private static Figure figure(RunResult r) {
    var stats = r.getPrimaryResult().getStatistics();
    return new Figure(stats.getPercentile(50), stats.getMin(), stats.getMax(), (int) stats.getN());
  }

  private static double allocation(Map<String, ?> secondary) {
    for (Map.Entry<String, ?> e : secondary.entrySet()) {
      if (e.getKey().endsWith("gc.alloc.rate.norm") && e.getValue() instanceof Result<?> r) {
        return r.getScore();
      }
    }
    return Double.NaN;
  }
}
