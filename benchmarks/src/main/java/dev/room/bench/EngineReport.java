package dev.room.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The engine and scaling sections of {@code RESULTS.md}, from the JMH rows. */
final class EngineReport {
  static final String GO_HEADER = "Go seed — other hardware (Apple M4 Pro), for reference";

  /** Each benchmark as the report names it, with the seed's Go figure for it (or ""). */
  private static final Map<String, String[]> ROWS = new LinkedHashMap<>();

  static {
    ROWS.put(
        "FastPathBenchmark.admitRelease",
        new String[] {
          "fast-path admit + release (`tryEnter` + `exit`)",
          "1,795 ns, 5,315 B/op (`FastPath`: the whole gin stack through httptest)"
        });
    ROWS.put(
        "StatusLookupBenchmark.poll",
        new String[] {
          "status lookup (`poll`), 100,000 queued",
          "339 ns, 0 B/op (`TokenStore_PollSingleLock`, 14-way parallel)"
        });
    ROWS.put(
        "GhostPositionBenchmark.pollBehindGhosts",
        new String[] {
          "position with 1,000 ghosts (`poll` behind 1,000 removed tickets)",
          "6.2 ns, 0 B/op (`PositionOf_Ledger1k`: the position arithmetic alone)"
        });
    ROWS.put(
        "GhostPositionBenchmark.pollOneBehindGhosts",
        new String[] {"the same, one client polled over and over (walk cached and predicted)", ""});
    ROWS.put(
        "GhostPositionBenchmark.pollAlone",
        new String[] {"the same poll of a client waiting alone (baseline: no walk)", ""});
    ROWS.put(
        "RoomReadBenchmark.queueDepth",
        new String[] {"`queueDepth()`, 100,000 queued", "1.0 ns, 0 B/op (`QueueDepth`)"});
    ROWS.put(
        "QueueReadBenchmark.queue100",
        new String[] {
          "`queue(100)` over 100,000 queued", "1,622 µs, 44,592 B/op (`Queue_100of100k`)"
        });
    ROWS.put(
        "LineChangeBenchmark.removeToken",
        new String[] {"`removeToken(token)`, 100,000 queued", "286 ns, 42 B/op (`RemoveToken`)"});
    ROWS.put(
        "LineChangeBenchmark.removeTokensIf",
        new String[] {
          "`removeTokensIf` over 10,000 (removes 1,000), per call",
          "830 µs, 1,632,576 B/op (`RemoveTokensFunc_10k`)"
        });
    ROWS.put(
        "RoomReadBenchmark.hasValidPass",
        new String[] {"`hasValidPass(pass)`", "34.3 ns, 0 B/op (`HasValidPass`)"});
    ROWS.put(
        "LineChangeBenchmark.arrive",
        new String[] {
          "ticket issue on the slow path (engine `arrive`, 100,000 queued)",
          "6,808 ns, 72,349 B/op (`SlowPathIssue`: the whole gin stack through httptest)"
        });
  }

  private static final String POLL = "StatusLookupBenchmark.poll";
  private static final String REMOVE = "RemoveTokenScalingBenchmark.removeToken";

  private final boolean quick;
  private final List<EngineRuns.Row> rows;

  EngineReport(boolean quick, List<EngineRuns.Row> rows) {
    this.quick = quick;
    this.rows = rows;
  }

  void engine(StringBuilder md, List<Goal> goals) {
    md.append("## 1. Engine (JMH)\n\n");
    md.append(
        """
        JMH 1.37, one fork per benchmark. Steady-state benchmarks: average time, %s, \
        `-prof gc`. Line-changing benchmarks: single-shot batches on a freshly built line per \
        iteration (%s), time divided by the batch size; B/op is not given for them because \
        their iterations include rebuilding the line. B/op is `gc.alloc.rate.norm`.

        | operation | threads | time per op, median (min – max) | B/op | %s |
        |---|---|---|---|---|
        """
            .formatted(
                quick
                    ? "1 × 300 ms warm-up and 2 × 200 ms measured iterations"
                    : "3 × 1 s warm-up and 6 × 1 s measured iterations",
                quick ? "3 warm-up, 2 measured" : "15 warm-up, 25 measured",
                GO_HEADER));
    for (Map.Entry<String, String[]> e : ROWS.entrySet()) {
      for (int threads : new int[] {1, 2}) {
        EngineRuns.Row r = row(e.getKey(), threads, defaultQueued(e.getKey()));
        if (r != null) {
          md.append(
              "| %s | %d | %s | %s | %s |\n"
                  .formatted(
                      e.getValue()[0],
                      threads,
                      r.nanos().timeWithSpread(),
                      Double.isNaN(r.bytesPerOp()) ? "—" : "%.2f".formatted(r.bytesPerOp()),
                      threads == 1 ? e.getValue()[1] : ""));
        }
      }
    }
    md.append(
        """

        The Go column is the seed README's table (Apple M4 Pro, 14 threads); its `FastPath` and \
        `SlowPathIssue` rows go through the whole HTTP stack, so they are not engine-only \
        figures. Ours are engine or `WaitingRoom` calls on this machine.

        **Ghosts.** The Go version keeps retired tickets in a ghost ledger and subtracts the \
        ghosts ahead when it computes a position. This design has no ledger: a retired ticket \
        leaves the order-statistic index at once, so a position is one index walk however many \
        tickets were retired. "Position with 1,000 ghosts" is therefore measured as a poll of \
        clients behind 1,000 tickets that were issued and then removed (2,000 issued, every \
        other one removed, 1,000 more issued and polled in random order). The figure is a whole \
        engine poll (lock, the token's record, liveness update, position), not the position arithmetic \
        alone; the "waiting alone" row is the same poll with no walk, measured in the same run.

        """);
    engineGoals(goals);
  }

  private void engineGoals(List<Goal> goals) {
    allocationGoal(goals, "Engine: status lookup", "StatusLookupBenchmark.poll", 100_000);
    allocationGoal(goals, "Engine: admit + release", "FastPathBenchmark.admitRelease", 0);
    EngineRuns.Row ghost = row("GhostPositionBenchmark.pollBehindGhosts", 1, 0);
    EngineRuns.Row alone = row("GhostPositionBenchmark.pollAlone", 1, 0);
    EngineRuns.Row one = row("GhostPositionBenchmark.pollOneBehindGhosts", 1, 0);
    if (ghost != null) {
      String repeated =
          one == null
              ? ""
              : " Polling one client behind the ghosts over and over, so that its walk stays in"
                  + " cache and its branches are predicted, takes %s."
                      .formatted(Figure.time(one.nanos().median()));
      String split =
          alone == null
              ? ""
              : " Side by side, the same poll of a client waiting alone takes %s, so the walk past 1,000 live clients and 1,000 ghosts costs about %s; the rest is the lock, the token's record and the liveness update."
                  .formatted(
                      Figure.time(alone.nanos().median()),
                      Figure.time(ghost.nanos().median() - alone.nanos().median()));
      goals.add(
          new Goal(
              "Engine: position with 1k ghosts",
              "≤ 50 ns",
              ghost.nanos().timeWithSpread() + " (whole poll, 1 thread)",
              ghost.nanos().median() <= 50,
              "A poll takes the line's lock (uncontended here), reads the record its token names,"
                  + " updates the ticket's liveness and counts the position from the ticket's slot number"
                  + " (a popcount of the head bits up to the slot and a Fenwick prefix sum);"
                  + " the Go figure is the position arithmetic alone."
                  + split
                  + repeated));
    }
    EngineRuns.Row queue = row("QueueReadBenchmark.queue100", 1, 100_000);
    if (queue != null) {
      goals.add(
          new Goal(
              "Engine: `queue(100)` over 100,000",
              "≤ 50 µs",
              queue.nanos().timeWithSpread(),
              queue.nanos().median() <= 50_000,
              "It walks the first 100 index entries and builds 100 `TicketInfo` records under"
                  + " the lock."));
    }
    EngineRuns.Row remove = row("LineChangeBenchmark.removeToken", 1, 0);
    if (remove != null) {
      goals.add(
          new Goal(
              "Engine: `removeToken`",
              "≤ 1 µs",
              remove.nanos().timeWithSpread() + " (100,000 queued)",
              remove.nanos().median() <= 1_000,
              "A removal parses the token, unlists the record its token names, clears the"
                  + " ticket's slot in the line index (its head and present bits and their counts)"
                  + " and frees the record for reuse, with no key search."));
    }
  }

  /** Allocation-free: under 1 B/op, since the smallest object a call could allocate is 16 B. */
  private void allocationGoal(List<Goal> goals, String area, String name, int queued) {
    EngineRuns.Row one = row(name, 1, queued);
    EngineRuns.Row two = row(name, 2, queued);
    if (one == null) {
      return;
    }
    String measured = "%.3f B/op at 1 thread".formatted(one.bytesPerOp());
    if (two != null) {
      measured += ", %.3f B/op at 2 threads".formatted(two.bytesPerOp());
    }
    boolean alone = one.bytesPerOp() < 1;
    boolean met = alone && (two == null || two.bytesPerOp() < 1);
    String note =
        alone
            ? "An uncontended call allocates nothing, so the 2-thread figure comes from waiting"
                + " for the line's lock: a `java.util.concurrent` lock allocates a wait-queue node"
                + " on the heap each time a call finds it held (a built-in monitor does not)."
                + " The engine code itself allocates nothing."
            : "Something on this path allocates on every call.";
    goals.add(
        new Goal(
            area,
            "allocation-free (< 1 B/op; one object would be ≥ 16 B)",
            measured,
            met,
            met ? "" : note));
  }

  void scaling(StringBuilder md, List<Goal> goals, String chartFile) {
    md.append(
        """
        ## 5. Scaling

        Status lookup (`poll` of a random client), `queue(100)` and `removeToken` (a random \
        client, on a line built once per fork and kept at its length) at 10,000 to 10,000,000 \
        queued, 1 thread, from the same run. "log model" is what a cost proportional to log2 n \
        would be, scaled from the 10,000 figure. The chart adds the Redis line (section 6): \
        server time per poll and polls/s from 10,000 to 1,000,000 waiting.

        | queued | status lookup | log model | `queue(100)` | `removeToken` |
        |---|---|---|---|---|
        """);
    EngineRuns.Row base = row(POLL, 1, 10_000);
    for (String q : EngineRuns.SCALING) {
      int n = Integer.parseInt(q);
      EngineRuns.Row poll = row(POLL, 1, n);
      EngineRuns.Row queue = row("QueueReadBenchmark.queue100", 1, n);
      EngineRuns.Row remove = row(REMOVE, 1, n);
      md.append(
          "| %,d | %s | %s | %s | %s |\n"
              .formatted(
                  n,
                  poll == null ? "n/a" : poll.nanos().timeWithSpread(),
                  base == null ? "n/a" : Figure.time(base.nanos().median() * logRatio(n)),
                  queue == null ? "n/a" : queue.nanos().timeWithSpread(),
                  remove == null ? "n/a" : remove.nanos().timeWithSpread()));
    }
    md.append("\n![status lookup and queue(100) against queue length](")
        .append(chartFile)
        .append(")\n\n");
    String why =
        "A lookup counts the position from the slot number in the ticket's record: a popcount of the"
            + " head bits up to the slot and a Fenwick prefix sum over per-block counts, primitive"
            + " arrays of about 2 MB and 128 KB at 10 million. What grows with the line is the"
            + " memory latency of the one dependent read a random client's poll makes cold: the"
            + " record its token names.";
    scalingGoal(goals, "Scaling: status lookup 10k → 1M", POLL, 1_000_000, why);
    // 10M, its growth from 10k and removeToken at 1M are issue 16's rows (Issue16Report).
    scalingGoal(
        goals,
        "Scaling: `queue(100)` 10k → 1M",
        "QueueReadBenchmark.queue100",
        1_000_000,
        "The walk to the first entry is O(log n) and the 100 entries after it are cache-cold at"
            + " 1,000,000 queued; most of the cost is building the 100 records.");
  }

  private void scalingGoal(List<Goal> goals, String area, String name, int to, String note) {
    EngineRuns.Row small = row(name, 1, 10_000);
    EngineRuns.Row large = row(name, 1, to);
    if (small == null || large == null) {
      return;
    }
    double growth = large.nanos().median() / small.nanos().median();
    double bound = 1.5; // issue 16: flat, at most × 1.5 from 10k to 10M (log-scale to 1M was × 1.5)
    goals.add(
        new Goal(
            area,
            "flat; at most × %.2f from 10k to %s".formatted(bound, to >= 10_000_000 ? "10M" : "1M"),
            "× %.2f (%s → %s)"
                .formatted(
                    growth,
                    Figure.time(small.nanos().median()),
                    Figure.time(large.nanos().median())),
            growth <= bound,
            note));
  }

  private static int defaultQueued(String name) {
    return name.startsWith("StatusLookup") || name.startsWith("QueueRead") ? 100_000 : 0;
  }

  /** log2(n) / log2(10,000): how much a logarithmic cost grows from 10,000 to n. */
  private static double logRatio(int n) {
    return Math.log(n) / Math.log(10_000);
  }

  EngineRuns.Row row(String name, int threads, int queued) {
    for (EngineRuns.Row r : rows) {
      if (r.name().equals(name) && r.threads() == threads && r.queued() == queued) {
        return r;
      }
    }
    return null;
  }
}
