package dev.room.bench;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A client's position with 1,000 retired tickets ahead of it: the seed's "position with a 1k ghost
 * ledger".
 *
 * <p>The Go version keeps retired tickets in a ghost ledger and subtracts the ghosts ahead of a
 * ticket when it computes a position. This design has no ledger: retiring a ticket removes it from
 * the order-statistic index at once, so a position is always one index walk however many tickets
 * were retired. To measure the same situation, the setup issues 2,000 tickets, removes every other
 * one (1,000 ghosts spread through the front of the line), then issues 1,000 more; each call polls
 * one of those last 1,000 clients (1,000 live clients and 1,000 ghosts ahead of each), rotating
 * through them in a fixed random order. The figure is a whole engine poll — lock, token lookup,
 * liveness update and position — not the position arithmetic alone. Goal: at most 50 ns.
 *
 * <p>{@code pollAlone} is the same poll on a line where the polled client is the only one waiting,
 * so its position walk is a single node: the difference between the two is what the position walk
 * itself costs with 2,000 live tickets and 1,000 ghosts. {@code pollOneBehindGhosts} polls one
 * client behind the ghosts over and over, so its walk is cached and predicted.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar GhostPositionBenchmark -t 1 -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 6, time = 1)
public class GhostPositionBenchmark {
  static final int GHOSTS = 1_000;

  private InMemoryLine line;
  private long[] hi;
  private long[] lo;
  private int[] order;

  @Setup(Level.Trial)
  public void setUp() {
    line = Lines.full();
    long[][] front = Lines.tokens(2 * GHOSTS, 0x5EED_0101L);
    Lines.enqueue(line, front, null);
    for (int i = 0; i < 2 * GHOSTS; i += 2) {
      if (!line.remove(front[0][i], front[1][i], Lines.NOW)) {
        throw new IllegalStateException("ghost " + i + " was not in line");
      }
    }
    long[][] behind = Lines.tokens(GHOSTS, 0x5EED_0102L);
    Lines.enqueue(line, behind, null);
    hi = behind[0];
    lo = behind[1];
    order = Shuffle.permutation(GHOSTS, 0x5EED_0103L);
    long last = line.poll(hi[GHOSTS - 1], lo[GHOSTS - 1], Lines.NOW, Lines.POLICY);
    Lines.requireWaiting(last, "poll behind the ghosts");
    if (Outcome.position(last) != 2L * GHOSTS) {
      throw new IllegalStateException("last client at " + Outcome.position(last));
    }
  }

  /** A line where one client waits alone: the poll without a position walk to speak of. */
  @State(Scope.Benchmark)
  public static class Alone {
    InMemoryLine line;
    long hi;
    long lo;

    @Setup(Level.Trial)
    public void setUp() {
      line = Lines.full();
      long[][] one = Lines.tokens(1, 0x5EED_0104L);
      Lines.enqueue(line, one, null);
      hi = one[0][0];
      lo = one[1][0];
      Lines.requireWaiting(line.poll(hi, lo, Lines.NOW, Lines.POLICY), "poll of the lone client");
    }
  }

  @Benchmark
  public long pollBehindGhosts(PollCursor cursor) {
    int i = cursor.take(order);
    return line.poll(hi[i], lo[i], Lines.NOW, Lines.POLICY);
  }

  /**
   * The last client behind the ghosts, polled again and again: its walk stays in cache and its
   * branches are predicted, as in a micro-benchmark of one position.
   */
  @Benchmark
  public long pollOneBehindGhosts() {
    return line.poll(hi[GHOSTS - 1], lo[GHOSTS - 1], Lines.NOW, Lines.POLICY);
  }

  /** The same poll of a client waiting alone (position 1). */
  @Benchmark
  public long pollAlone(Alone alone) {
    return alone.line.poll(alone.hi, alone.lo, Lines.NOW, Lines.POLICY);
  }
}
