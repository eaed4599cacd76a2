package dev.room.bench;

import dev.room.engine.InMemoryLine;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The engine's fast path: a request takes a free slot while nobody waits, then gives it back.
 *
 * <p>Measures {@code InMemoryLine.tryEnter()} followed by {@code exit(now)} on a line whose
 * 1,000,000 slots are never all taken, so every call succeeds: the per-request cost of the gate
 * when the room is not full, without HTTP. The goal is no allocation (read {@code
 * gc.alloc.rate.norm}); run it at 1 and 2 threads to see the cost of contention on the slot
 * counter.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FastPathBenchmark -t 1 -prof gc
 * java -jar benchmarks/target/benchmarks.jar FastPathBenchmark -t 2 -prof gc
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
public class FastPathBenchmark {
  private InMemoryLine line;

  @Setup
  public void setUp() {
    line = new InMemoryLine(1_000_000);
  }

  /** One admission and its release. */
  @Benchmark
  public boolean admitRelease() {
    if (!line.tryEnter()) {
      throw new IllegalStateException("the fast path must admit: the line has free slots");
    }
    line.exit(Lines.NOW);
    return true;
  }
}
