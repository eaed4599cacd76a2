package dev.room.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 16's goal table as {@code RESULTS.md} opens with it: every row of the issue's table with
 * the issue's "now" figure, the goal, this run's figure, the in-memory baseline from the same run,
 * a verdict computed from the figures, and the command that measured it; then the Redis section.
 */
final class Issue16Report {
  /** The "before" and "after" names {@code PollVariants} registers its poll paths under. */
  static final String BEFORE = "before";

  static final String AFTER = "after";

  static final String MEMORY = "memory";

  /** 2 GB as the issue writes it (decimal), as a JVM heap limit in MiB. */
  static final int TWO_GB_MIB = 1907;

  /** Round trips per poll may exceed 1 by the heartbeats' and the probe's own reads, under 1%. */
  static final double ROUND_TRIP_SLACK = 1.01;

  /** Redis main-thread busy share below which a run is bounded by the load generator. */
  static final double REDIS_BOUND = 0.8;

  /**
   * One row.
   *
   * @param measure the issue's measure
   * @param now the issue's "now" figure, as the issue states it
   * @param goal the issue's goal
   * @param measured this run's figure
   * @param baseline the in-memory line's figure from the same run
   * @param met whether the figure meets the goal; null when it was not measured
   * @param command the key of the command that measured it
   * @param note what limits the figure, said where the goal is missed
   */
  record Row(
      String measure,
      String now,
      String goal,
      String measured,
      String baseline,
      Boolean met,
      String command,
      String note) {}

  private final boolean quick;
  private final EngineReport engine;
  private final Map<String, String> heap1m;
  private final Map<String, String> heap10m;
  private final boolean fits;
  private final Map<String, String> soak;
  private final RedisResults redis;
  private final Map<String, String> commands;
  private final Map<String, String> floor;
  private final Map<String, String> direct;

  Issue16Report(
      boolean quick,
      EngineReport engine,
      Map<String, String> heap1m,
      Map<String, String> heap10m,
      boolean fits,
      Map<String, String> soak,
      RedisResults redis,
      Map<String, String> commands,
      Map<String, String> floor,
      Map<String, String> direct) {
    this.quick = quick;
    this.engine = engine;
    this.heap1m = heap1m;
    this.heap10m = heap10m;
    this.fits = fits;
    this.soak = soak;
    this.redis = redis;
    this.commands = commands;
    this.floor = floor;
    this.direct = direct;
  }

  List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    soakRows(rows);
    lookupRows(rows);
    removeRow(rows);
    heapRow(rows);
    redisRows(rows);
    return rows;
  }

  String markdown() {
    List<Row> rows = rows();
    StringBuilder md = new StringBuilder();
    md.append(
        """
        ## Issue 16 goals

        Every row of issue 16's goal table, measured in this run. "Now" is the issue's figure \
        (measured on `main` before the work, as the issue states it); "in-memory baseline" is \
        the in-memory line's figure from this same run. The verdict is computed from the \
        measured figure%s.

        | measure | now (issue) | goal | measured (this run) | in-memory baseline (same run) | verdict | command |
        |---|---|---|---|---|---|---|
        """
            .formatted(
                quick
                    ? "; this is a quick run (short windows, a 45 s soak, Redis to 100,000), so"
                        + " verdicts here prove the pipeline, not the goals"
                    : ""));
    for (Row r : rows) {
      md.append(
          "| %s | %s | %s | %s | %s | %s | %s |\n"
              .formatted(
                  r.measure(),
                  r.now(),
                  r.goal(),
                  r.measured(),
                  r.baseline(),
                  r.met() == null ? "**not measured**" : r.met() ? "met" : "**missed**",
                  r.command()));
    }
    md.append("\nCommands (from the repository root, after `make bench-jar`):\n\n");
    for (Map.Entry<String, String> c : commands.entrySet()) {
      md.append("- ").append(c.getKey()).append(": `").append(c.getValue()).append("`\n");
    }
    md.append('\n');
    for (Row r : rows) {
      if (r.met() == null || !r.met()) {
        md.append(
            "- **%s — %s:** goal %s, measured %s. %s\n"
                .formatted(
                    r.met() == null ? "Not measured" : "Missed",
                    r.measure(),
                    r.goal(),
                    r.measured(),
                    r.note()));
      }
    }
    md.append('\n');
    return md.toString();
  }

  private void soakRows(List<Row> rows) {
    double util = num(soak, "utilisation");
    double p50 = num(soak, "handover_p50_ms");
    String sanity =
        " Order violations %s, over capacity %s, errors %s, heap after GC %s MB."
            .formatted(
                soak.getOrDefault("order_violations", "?"),
                soak.getOrDefault("over_capacity", "?"),
                soak.getOrDefault("errors", "?"),
                soak.getOrDefault("heap_mb", "?"));
    rows.add(
        new Row(
            "origin utilisation while ≥ capacity wait (mean in-flight ÷ capacity), requests of"
                + " 50–500 ms, capacity 20",
            "0.05 (0.98 of 20; 19 slots held by offers)",
            "≥ 0.9",
            Double.isNaN(util)
                ? "n/a"
                : "%.3f (%.1f of %s; %s offers outstanding)"
                    .formatted(
                        util,
                        util * num(soak, "capacity", 20),
                        soak.getOrDefault("capacity", "20"),
                        soak.getOrDefault("offers", "?")),
            "the soak runs on the in-memory line",
            Double.isNaN(util) ? null : util >= 0.9,
            "soak",
            "Mean requests in flight at the origin over capacity, sampled every 10 ms while at"
                + " least capacity live browsers wait."
                + sanity));
    rows.add(
        new Row(
            "slot freed → next request at the origin, median",
            "~2 s (offer idle)",
            "≤ 100 ms",
            Double.isNaN(p50)
                ? "n/a"
                : "%.1f ms (p99 %s ms)".formatted(p50, soak.getOrDefault("handover_p99_ms", "?")),
            "the soak runs on the in-memory line",
            Double.isNaN(p50) ? null : p50 <= 100,
            "soak",
            "Each freed slot waits for the next client's claim: an offer, then that client's"
                + " next poll and reload."));
  }

  private static final String POLL = "StatusLookupBenchmark.poll";
  private static final String REMOVE = "RemoveTokenScalingBenchmark.removeToken";

  private void lookupRows(List<Row> rows) {
    StringBuilder path = new StringBuilder();
    for (String q : EngineRuns.SCALING) {
      EngineRuns.Row r = engine.row(POLL, 1, Integer.parseInt(q));
      path.append(path.length() == 0 ? "" : " → ")
          .append(r == null ? "n/a" : Figure.time(r.nanos().median()));
    }
    EngineRuns.Row small = engine.row(POLL, 1, 10_000);
    EngineRuns.Row big = engine.row(POLL, 1, 10_000_000);
    String why =
        "A random client's poll reads one record that misses the caches at 10 million: its token"
            + " names it (TicketRecords), and the position is a popcount of the head bits at the"
            + " record's slot and a Fenwick sum, arrays that stay in cache on a quiet host (the"
            + " poll's own misses can evict them on a busy one). At 10,000 everything is in cache,"
            + " so a lookup whose read misses cannot stay within 1.5 times that. On this machine"
            + floorText()
            + " `DirectLookup` and `MemoryFloor` are run by `make bench`; their commands:"
            + " `"
            + commands.getOrDefault("direct", "n/a")
            + "`, `"
            + commands.getOrDefault("floor", "n/a")
            + "`.";
    rows.add(
        new Row(
            "in-memory status lookup, 1 thread, 10M queued",
            "244 ns → 2.41 µs (10k → 1M)",
            "≤ 300 ns at 10M",
            big == null
                ? "n/a"
                : big.nanos().timeWithSpread() + " (10k → 100k → 1M → 10M: " + path + ")",
            small == null ? "n/a" : "10k queued: " + Figure.time(small.nanos().median()),
            big == null ? null : big.nanos().median() <= 300,
            "lookup",
            why));
    double growth =
        small == null || big == null ? Double.NaN : big.nanos().median() / small.nanos().median();
    rows.add(
        new Row(
            "in-memory status lookup growth, 10k → 10M",
            "× 9.9 (10k → 1M)",
            "≤ × 1.5",
            Double.isNaN(growth) ? "n/a" : "× %.2f".formatted(growth),
            small == null ? "n/a" : "10k queued: " + Figure.time(small.nanos().median()),
            Double.isNaN(growth) ? null : growth <= 1.5,
            "lookup",
            why));
  }

  /** The first value whose name starts with {@code prefix}, or null. */
  private static String valueStartingWith(Map<String, String> values, String prefix) {
    return values.entrySet().stream()
        .filter(x -> x.getKey().startsWith(prefix))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(null);
  }

  /** The machine's floor for the lookup, from this run's MemoryFloor and DirectLookup. */
  private String floorText() {
    Map.Entry<String, String> read =
        floor.entrySet().stream().reduce((a, b) -> b).orElse(null); // the largest span
    String e = valueStartingWith(direct, "engine_");
    String m = valueStartingWith(direct, "model_");
    StringBuilder t = new StringBuilder();
    if (read != null) {
      long ints = Long.parseLong(read.getKey().substring("ints_".length()));
      t.append(
              " one dependent read over %,d MB (`MemoryFloor`; the records of 10 million"
                  .formatted(ints * 4 / 1_000_000))
          .append(" waiting span 640 MB) costs ")
          .append(Figure.time(Double.parseDouble(read.getValue())))
          .append(", the floor of this row whatever the layout.");
    } else {
      t.append(" the memory read was not measured.");
    }
    if (e != null && m != null) {
      double en = Double.parseDouble(e);
      double mn = Double.parseDouble(m);
      t.append(
              " In one JVM the engine's poll takes %s beside %s for a model of the one-miss"
                  .formatted(Figure.time(en), Figure.time(mn)))
          .append(
              " design with nothing else (`DirectLookup`, model ÷ engine %.2f; before the"
                  .formatted(mn / en))
          .append(" token named its record, two misses a poll, it was about 0.45).");
    }
    return t.toString();
  }

  private void removeRow(List<Row> rows) {
    EngineRuns.Row r = engine.row(REMOVE, 1, 1_000_000);
    EngineRuns.Row small = engine.row(REMOVE, 1, 10_000);
    rows.add(
        new Row(
            "in-memory `removeToken`, 1M queued",
            "2.9 µs (at 100k)",
            "≤ 1 µs",
            r == null ? "n/a" : r.nanos().timeWithSpread(),
            small == null ? "n/a" : "10k queued: " + Figure.time(small.nanos().median()),
            r == null ? null : r.nanos().median() <= 1_000,
            "removeToken",
            "A removal parses the token, unlists the record its token names, takes the ticket"
                + " out of the line index and frees the record; at 1M the record, the ticket and"
                + " its slot are read cold."));
  }

  private void heapRow(List<Row> rows) {
    double per = num(heap10m, "bytes_per_client");
    double mib = num(heap10m, "retained_mib");
    double per1m = num(heap1m, "bytes_per_client");
    boolean measured = !Double.isNaN(per);
    rows.add(
        new Row(
            "heap per queued client, 10M queued; 10M queued in < 2 GB heap",
            "146 B (1M)",
            "≤ 150 B; 10M queued in < 2 GB heap",
            measured
                ? "%.1f B (%.0f MiB retained); %s"
                    .formatted(
                        per,
                        mib,
                        fits
                            ? "10M queued in a %d MiB (2 GB) heap".formatted(TWO_GB_MIB)
                            : "**did not fit** in a %d MiB (2 GB) heap".formatted(TWO_GB_MIB))
                : "n/a",
            Double.isNaN(per1m) ? "n/a" : "1M queued: %.1f B".formatted(per1m),
            measured ? per <= 150 && fits : null,
            "heap",
            "Retained heap after full collections ÷ clients: the ticket, its share of the token"
                + " table and of the index."));
  }

  private void redisRows(List<Row> rows) {
    if (!redis.ran()) {
      String why = redis.failure == null ? "the Redis benchmark did not run" : redis.failure;
      for (String m :
          new String[] {
            "Redis server time per status poll, 100k and 1M waiting",
            "status polls/s on one room, Redis line (after ÷ before, same run)",
            "Redis polls bounded by the load generator, not Redis",
            "Redis round trips per poll"
          }) {
        rows.add(new Row(m, "", "", "n/a", "n/a", null, "redis", why));
      }
      return;
    }
    int hiT = redis.maxThreads();
    int loT = redis.minThreads();
    int largest = redis.largest();
    boolean reaches1m = largest >= 1_000_000;
    boolean before = redis.variants().contains(BEFORE);
    String at = reaches1m ? "1M" : "%,d (largest size this run)".formatted(largest);

    List<Integer> shown = new ArrayList<>();
    if (redis.sizes().contains(100_000)) {
      shown.add(100_000);
    }
    if (!shown.contains(largest)) {
      shown.add(largest);
    }
    StringBuilder per = new StringBuilder();
    for (int size : shown) {
      per.append(per.length() == 0 ? "" : "; ")
          .append(
              "%s: **%s µs**"
                  .formatted(label(size), us(redis.median(AFTER, size, hiT, "server_us"))));
      double was = redis.median(BEFORE, size, hiT, "server_us");
      if (!Double.isNaN(was)) {
        per.append(" (before %s µs)".formatted(us(was)));
      }
      per.append(", CPU %s µs".formatted(us(redis.median(AFTER, size, hiT, "cpu_us"))));
      // every ticket's first poll, before the windows (RedisPollBench.firstPolls)
      double first = redis.median(AFTER + "+first", size, hiT, "server_us");
      if (!Double.isNaN(first)) {
        per.append(", first poll %s µs".formatted(us(first)));
      }
    }
    double serverUs = redis.median(AFTER, largest, hiT, "server_us");
    double memPoll = 1e6 / redis.median(MEMORY, largest, loT, "polls_per_s");
    rows.add(
        new Row(
            "Redis server time per status poll (Redis's own counters ÷ polls), 100k and 1M"
                + " waiting",
            "60–100 µs (100k)",
            "≤ 10 µs at 1M",
            per + " (" + hiT + " threads)",
            "in memory, a whole poll at %s: %s µs of one thread (%d thread)"
                .formatted(label(largest), us(memPoll), loT),
            Double.isNaN(serverUs) ? null : reaches1m && serverUs <= 10,
            "redis",
            "Server time is `INFO commandstats` time of the commands clients sent, each command's"
                + " time weighted by the share of its calls clients sent (from a MONITOR sample);"
                + " CPU is Redis's main-thread user + system time, socket reads and writes"
                + " included. The windows poll seen tickets (the steady state): every ticket had"
                + " its first poll before them, measured on its own (\"first poll\")."
                + (reaches1m ? "" : " Not measured at 1M in this run.")));

    int ref = reference(before, hiT);
    double after = redis.median(AFTER, ref, hiT, "polls_per_s");
    double was = before ? redis.median(BEFORE, ref, hiT, "polls_per_s") : Double.NaN;
    double ratio = after / was;
    double mem = redis.median(MEMORY, ref, hiT, "polls_per_s");
    double busy = redis.median(AFTER, ref, hiT, "busy");
    String busyText =
        "; Redis busy %.0f%% of the window%s"
            .formatted(
                busy * 100,
                before
                    ? " (before: %.0f%%)".formatted(redis.median(BEFORE, ref, hiT, "busy") * 100)
                    : "");
    StringBuilder others = new StringBuilder();
    for (int t : redis.threadCounts()) {
      double a = redis.median(AFTER, ref, t, "polls_per_s");
      double b = before ? redis.median(BEFORE, ref, t, "polls_per_s") : Double.NaN;
      if (t != hiT && t > 1 && !Double.isNaN(a / b)) {
        others.append(
            "; %d threads: %,.0f ÷ %,.0f = × %.2f, Redis busy %.0f%%"
                .formatted(t, a, b, a / b, redis.median(AFTER, ref, t, "busy") * 100));
      }
    }
    rows.add(
        new Row(
            "status polls/s on one room, Redis line, this machine",
            "~14,500 (100k waiting)",
            "≥ 4× today in the same run, bounded by the load generator, not Redis (Redis busy <"
                + " %.0f%%)".formatted(REDIS_BOUND * 100),
            (before
                    ? "after %,.0f ÷ before %,.0f = **× %.2f** (%s waiting, %d threads)"
                        .formatted(after, was, ratio, label(ref), hiT)
                    : "after %,.0f (%s waiting, %d threads); before not measured"
                        .formatted(after, label(ref), hiT))
                + busyText
                + others,
            "%,.0f polls/s".formatted(mem),
            before && redis.beforeIsEarlierBuild() ? ratio >= 4 && busy < REDIS_BOUND : null,
            "redis",
            before
                ? "Before is "
                    + (redis.beforePath() == null
                        ? "the registered before path"
                        : redis.beforePath())
                    + (redis.beforeIsEarlierBuild()
                        ? ": the code the issue's ~14,500 was measured on."
                        : ", not the library the issue measured, so no verdict is computed"
                            + " (`make bench-before-jar` builds that library).")
                    + " Polls/s of the two poll paths, each on its own room of the same size on one"
                    + " redis-server, interleaved rounds. Busy is Redis's main-thread CPU time over"
                    + " the window's wall time: near 100% means Redis bounded the poll rate (the"
                    + " load generator shares the machine's 2 cores with it). The verdict is at the"
                    + " most threads: a status endpoint serving 20,000 polls/s at a few"
                    + " milliseconds a poll has tens of polls in flight at once (Little's law),"
                    + " which is what 64 concurrent pollers are; fewer threads are shown beside"
                    + " it."
                : "Only one poll path is registered in `benchmarks/.../redis/PollVariants`: the"
                    + " build's previous poll path must be registered there as \"before\" for the"
                    + " ratio to be measured."));
    double trips = redis.median(AFTER, largest, loT, "round_trips");
    rows.add(
        new Row(
            "Redis round trips per poll",
            "1",
            "≤ 1 (amortised below 1 is welcome)",
            Double.isNaN(trips)
                ? "n/a"
                : "%.3f (%s waiting, %d thread; %d threads: %.3f)%s"
                    .formatted(
                        trips,
                        label(largest),
                        loT,
                        hiT,
                        redis.median(AFTER, largest, hiT, "round_trips"),
                        beforeTrips(loT)),
            "0",
            Double.isNaN(trips) ? null : trips <= ROUND_TRIP_SLACK,
            "redis",
            "Socket reads Redis served (`total_reads_processed`) ÷ polls, 1 thread; the"
                + " heartbeat's and the probe's own reads count too (under 1%, allowed); with"
                + " several threads Lettuce coalesces concurrent commands into one write."));
  }

  /**
   * Where polls/s are compared: 100k waiting (the issue's "now"), else the largest size measured on
   * every line compared.
   */
  private int reference(boolean before, int threads) {
    List<Integer> sizes = redis.sizes();
    for (int i = sizes.size() - 1; i >= 0; i--) {
      int size = sizes.get(i);
      if (redis.get(AFTER, size, threads, "polls_per_s") != null
          && (!before || redis.get(BEFORE, size, threads, "polls_per_s") != null)
          && (size == 100_000 || !sizes.contains(100_000) || size < 100_000)) {
        return size;
      }
    }
    return redis.largest();
  }

  /** The old path's round trips at the largest size it was measured at, or "". */
  private String beforeTrips(int threads) {
    for (int i = redis.sizes().size() - 1; i >= 0; i--) {
      int size = redis.sizes().get(i);
      double v = redis.median(BEFORE, size, threads, "round_trips");
      if (!Double.isNaN(v)) {
        return "; before %.3f (%s)".formatted(v, label(size));
      }
    }
    return "";
  }

  static String label(int size) {
    return size >= 1_000_000 && size % 1_000_000 == 0
        ? size / 1_000_000 + "M"
        : size >= 1_000 && size % 1_000 == 0 ? size / 1_000 + "k" : Integer.toString(size);
  }

  private static String us(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.1f", v);
  }

  private static double num(Map<String, String> m, String key) {
    return num(m, key, Double.NaN);
  }

  private static double num(Map<String, String> m, String key, double dflt) {
    try {
      return Double.parseDouble(m.getOrDefault(key, ""));
    } catch (NumberFormatException e) {
      return dflt;
    }
  }

  /** The Redis section: every line, size and thread count of the run. */
  String redisSection(String command) {
    StringBuilder md =
        new StringBuilder("## 6. Redis line: status polls beside the in-memory line\n\n");
    if (!redis.ran()) {
      return md.append(redis.failure == null ? "Not run." : redis.failure)
          .append("\n\n")
          .toString();
    }
    md.append(
        """
        `%s`

        One `redis-server` on loopback (no persistence) started by the benchmark; the in-memory \
        line and each registered Redis poll path (%s) in a room of its own, one slot held, \
        grown to each size by arrivals. Threads poll random waiting tickets (`Line.poll`, what \
        the status endpoint calls); medians over interleaved rounds (min – max). Server µs/poll: \
        `INFO commandstats` time of the commands clients sent ÷ polls; CPU µs/poll: Redis main \
        thread user + system time ÷ polls; busy: that CPU ÷ wall time; round trips: socket reads \
        Redis served ÷ polls; commands: every command Redis ran (inside scripts too) ÷ polls; \
        failed: polls in the window that got no answer within the line's command timeout \
        (counted, not retried; they happen only on an oversubscribed machine); client: the \
        benchmark JVM's CPU time (pollers, the library's client side, Lettuce) ÷ polls.

        | waiting | line | threads | polls/s | server µs/poll | CPU µs/poll | Redis busy | round trips/poll | commands/poll | failed polls | client CPU µs/poll |
        |---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
        """
            .formatted(command, String.join(", ", redis.variants())));
    List<String> lines = new ArrayList<>();
    lines.add(MEMORY);
    lines.addAll(redis.variants());
    for (int size : redis.sizes()) {
      for (String line : lines) {
        for (int t : redis.threadCounts()) {
          Figure polls = redis.get(line, size, t, "polls_per_s");
          if (polls == null) {
            continue;
          }
          md.append(
              "| %,d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n"
                  .formatted(
                      size,
                      line,
                      t,
                      polls.withSpread("%,.0f"),
                      cell(line, size, t, "server_us", "%.1f"),
                      cell(line, size, t, "cpu_us", "%.1f"),
                      cell(line, size, t, "busy", "%.2f"),
                      cell(line, size, t, "round_trips", "%.3f"),
                      cell(line, size, t, "commands", "%.1f"),
                      cell(line, size, t, "errors", "%.0f"),
                      cell(line, size, t, "client_us", "%.1f")));
        }
      }
    }
    return md.append('\n').toString();
  }

  private String cell(String line, int size, int threads, String metric, String format) {
    Figure f = redis.get(line, size, threads, metric);
    return f == null ? "–" : f.withSpread(format);
  }
}
