package dev.room.bench;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns one driver run into {@code RESULTS.md}: machine, command, the goals with a verdict each,
 * then one section per part of the issue.
 */
final class Report {
  private final boolean quick;
  private final Machine machine;
  private final String loadAfter;
  private final String command;
  private final double minutes;
  private final EngineReport engine;
  private final HttpReport http;
  private final Map<String, String> heap = new LinkedHashMap<>();
  private final Map<String, String> heap10m = new LinkedHashMap<>();

  Report(
      boolean quick,
      Machine machine,
      String loadAfter,
      String command,
      double minutes,
      List<EngineRuns.Row> engineRows,
      List<String[]> heapLines,
      List<String[]> httpLines) {
    this.quick = quick;
    this.machine = machine;
    this.loadAfter = loadAfter;
    this.command = command;
    this.minutes = minutes;
    this.engine = new EngineReport(quick, engineRows);
    this.http = new HttpReport(quick, httpLines);
    for (String[] l : heapLines) {
      if (l[0].equals("heap")) {
        heap.put(l[1], l[2]);
      } else if (l[0].equals("heap10m")) {
        heap10m.put(l[1], l[2]);
      }
    }
  }

  EngineReport engine() {
    return engine;
  }

  Map<String, String> heap1m() {
    return heap;
  }

  Map<String, String> heap10m() {
    return heap10m;
  }

  /** The report with {@code issue16} (issue 16's goal table) ahead of the other goals. */
  String markdown(String chartFile, String issue16) {
    List<Goal> goals = new ArrayList<>();
    StringBuilder body = new StringBuilder();
    engine.engine(body, goals);
    http.gate(body, goals);
    http.polls(body, goals);
    heap(body, goals);
    engine.scaling(body, goals, chartFile);

    StringBuilder md = new StringBuilder();
    md.append(
        """
        # room benchmarks

        %s Generated %s in %.1f minutes by `BenchDriver` \
        (`benchmarks/src/main/java/dev/room/bench/`), with the library built from the working \
        tree at `%s`.

        Every figure is a median with its spread (min – max) over the measurement iterations \
        (JMH) or rounds (HTTP). Every comparison is a ratio of two things measured in this run \
        on this machine. The Go figures are the seed README's, measured on other hardware \
        (Apple M4 Pro): context, not a comparison.

        ## Machine

        | | |
        |---|---|
        | CPUs (`nproc`) | %d |
        | CPU model (`/proc/cpuinfo`) | %s |
        | Memory | %s |
        | JDK | %s |
        | OS | %s |
        | Load average (1 / 5 / 15 min), start → end | %s → %s |

        The machine is shared with other engineers' builds and browser tests, so absolute \
        figures are noisy (a load average above 2 means the 2 CPUs were oversubscribed and \
        benchmark threads waited for a CPU). Ratios of variants measured side by side, \
        interleaved, are the robust figures.

        ## Command

        ```
        %s
        ```

        `make bench` installs the library (`mvn -DskipTests install`), builds the JMH uber-jar \
        `benchmarks/target/benchmarks.jar` and runs \
        `java -cp benchmarks/target/benchmarks.jar dev.room.bench.BenchDriver`, which runs the \
        JMH benchmarks (one forked JVM per benchmark), then `HeapFootprint`, `HttpBench`, \
        `RedisPollBench` and `SoakBenchmark` in child JVMs, one at a time, and writes this file \
        and the chart. Each benchmark's Javadoc says what it measures and how to run it alone.

        %s## Other goals (issues 6, 14, 18)

        | area | goal | measured | verdict |
        |---|---|---|---|
        """
            .formatted(
                quick
                    ? "**Quick run** (`make bench-quick`: every benchmark once, short iterations;"
                        + " a smoke test for CI, not figures to quote)."
                    : "**Full run.**",
                ZonedDateTime.now(ZoneOffset.UTC)
                    .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
                minutes,
                machine.commit(),
                machine.cpus(),
                machine.cpuModel(),
                machine.memory(),
                machine.jdk(),
                machine.os(),
                machine.load(),
                loadAfter,
                command,
                issue16));
    for (Goal g : goals) {
      md.append(
          "| %s | %s | %s | %s |\n"
              .formatted(g.area(), g.target(), g.measured(), g.met() ? "met" : "**missed**"));
    }
    md.append('\n');
    boolean allMet = true;
    for (Goal g : goals) {
      if (!g.met()) {
        allMet = false;
        md.append(
            "- **Missed — %s:** goal %s, measured %s. %s\n"
                .formatted(g.area(), g.target(), g.measured(), g.note()));
      }
    }
    md.append(allMet ? "Every goal was met in this run.\n\n" : "\n");
    return md.append(body).toString();
  }

  private void heap(StringBuilder md, List<Goal> goals) {
    double perClient = Double.parseDouble(heap.getOrDefault("bytes_per_client", "NaN"));
    double issueMillis = Double.parseDouble(heap.getOrDefault("issue_millis", "NaN"));
    int clients = Integer.parseInt(heap.getOrDefault("clients", "0"));
    md.append(
        """
        ## 4. Memory

        `HeapFootprint` (its own JVM, `-Xms2g -Xmx2g`, %s): used heap after full collections, \
        before and after queueing %,d clients on an in-memory line (default empty client key; \
        the probe does not keep the tokens).

        | figure | value |
        |---|---|
        | retained heap per queued client | **%.1f bytes** |
        | retained heap, total | %s MiB |
        | time to issue %,d tickets (engine `arrive`, one thread, collections included) | %.0f ms (%.2f µs each) |
        | time to generate %,d tokens with `SecureRandom` (`Tokens.generate`, for comparison) | %s ms |

        One measurement, not a median: the retained size is deterministic up to the token \
        table's power-of-two capacity; the issue time is one timed pass after a warm-up pass of \
        200,000 and includes the young collections that promote the growing line.

        """
            .formatted(
                heap.getOrDefault("gc", "?"),
                clients,
                perClient,
                heap.getOrDefault("retained_mib", "?"),
                clients,
                issueMillis,
                clients == 0 ? Double.NaN : issueMillis * 1e3 / clients,
                clients,
                heap.getOrDefault("generate_millis", "?")));
    goals.add(
        new Goal(
            "Memory: retained heap per queued client, 1M queued",
            "≤ 200 bytes",
            "%.1f bytes".formatted(perClient),
            perClient <= 200,
            "Each client is one `Ticket` object (token, ordering key, timestamps, ready-list"
                + " links, its index leaf) plus its share of the token table and of the index."));
    double perClient10m = Double.parseDouble(heap10m.getOrDefault("bytes_per_client", "NaN"));
    double mib10m = Double.parseDouble(heap10m.getOrDefault("retained_mib", "NaN"));
    if (!Double.isNaN(perClient10m)) {
      md.append(
          """
          The same probe at 10,000,000 queued (its own JVM, in a 2 GB heap, `-Xmx%dm`, or \
          `-Xmx3g` when it does not fit there): **%.1f bytes** per client, %.1f MiB retained in \
          all; issuing them took %s ms.

          """
              .formatted(
                  Issue16Report.TWO_GB_MIB,
                  perClient10m,
                  mib10m,
                  heap10m.getOrDefault("issue_millis", "?")));
    }
  }
}
