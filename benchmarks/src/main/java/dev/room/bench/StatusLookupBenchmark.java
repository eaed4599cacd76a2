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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A status poll on the engine: {@code InMemoryLine.poll(hi, lo, now, policy)} with {@code queued}
 * clients waiting.
 *
 * <p>Each call polls a different client, in a fixed random order over all of them, so the token
 * table, the tickets and the line index are read the way a crowd of polling browsers reads them
 * (not one hot ticket in cache; the tickets were allocated in arrival order, so polling in that
 * order would let the CPU prefetch them). The tokens themselves are laid out in that polling order,
 * {@code hi} and {@code lo} side by side in one array read front to back, so the harness's own
 * reads are sequential and cost next to nothing: a real request's token arrives hot from its
 * socket, and a random read of two token arrays would add two cache and TLB misses per call that
 * the line does not cost. What is measured is the line's own reads, cold. A poll finds the ticket,
 * refreshes its liveness, applies the poll rate limit and computes its position from the
 * order-statistic index; what the status endpoint adds on top is HTTP. The benchmark clock stands
 * still, so after a client's first poll its later ones take the rate-limited branch, which does the
 * same lookup and position walk. The goal is no allocation on this path, and a cost that stays flat
 * as the line grows: the scaling run sets {@code queued} to 10,000, 100,000, 1,000,000 and
 * 10,000,000 (issue 16: at most 300 ns at 10 million, at most 1.5 times the 10,000 figure). The
 * fork's 3 GB heap holds the 10 million line, on transparent huge pages as README advises for big
 * lines: with 4 KB pages nearly every cold read of a 1.3 GB line also misses the TLB (at 10 million
 * huge pages took the median from 745 to 548 ns, side by side).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar StatusLookupBenchmark -p queued=100000 -t 1 -prof gc
 * java -jar benchmarks/target/benchmarks.jar StatusLookupBenchmark -p queued=10000,100000,1000000,10000000
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+UseTransparentHugePages"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 6, time = 1)
public class StatusLookupBenchmark {
  @Param({"100000"})
  public int queued;

  private InMemoryLine line;

  /** The tokens in polling order: client {@code k}'s hi at {@code 2k}, its lo at {@code 2k + 1}. */
  private long[] polls;

  @Setup(Level.Trial)
  public void setUp() {
    line = Lines.full();
    long[][] tokens = Lines.tokens(queued, 0x5EED_0001L);
    Lines.enqueue(line, tokens, null);
    long[] hi = tokens[0];
    long[] lo = tokens[1];
    int[] order = Shuffle.permutation(queued, 0x5EED_0002L);
    polls = new long[2 * queued];
    for (int k = 0; k < queued; k++) {
      polls[2 * k] = hi[order[k]];
      polls[2 * k + 1] = lo[order[k]];
    }
    long last = line.poll(hi[queued - 1], lo[queued - 1], Lines.NOW, Lines.POLICY);
    Lines.requireWaiting(last, "poll of the last client");
    if (Outcome.position(last) != queued) {
      throw new IllegalStateException("last client at " + Outcome.position(last));
    }
  }

  @Benchmark
  public long poll(PollCursor cursor) {
    int k = 2 * cursor.next(queued);
    return line.poll(polls[k], polls[k + 1], Lines.NOW, Lines.POLICY);
  }
}
