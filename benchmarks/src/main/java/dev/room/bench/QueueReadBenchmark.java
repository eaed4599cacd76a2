package dev.room.bench;

import dev.room.TicketInfo;
import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
import java.util.List;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The admin read {@code WaitingRoom.queue(100)}: the first 100 clients in order, with {@code
 * queued} clients waiting.
 *
 * <p>Walks the first 100 entries of the ordered line index and builds a {@code TicketInfo} for each
 * (token hex, timestamps), under the line's lock, so the figure is also how long one admin read can
 * hold up status polls. Goal: under 50 µs over 100,000 queued, and flat as the line grows (the
 * scaling run sets {@code queued} to 10,000, 100,000 and 1,000,000). Allocation is expected: the
 * result is 100 records.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar QueueReadBenchmark -p queued=100000 -prof gc
 * java -jar benchmarks/target/benchmarks.jar QueueReadBenchmark -p queued=10000,100000,1000000
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 6, time = 1)
public class QueueReadBenchmark {
  @Param({"100000"})
  public int queued;

  private WaitingRoom room;

  @Setup(Level.Trial)
  public void setUp() {
    InMemoryLine line = Lines.full();
    Lines.enqueue(line, Lines.tokens(queued, 0x5EED_0201L), null);
    room = Rooms.over(line);
    List<TicketInfo> first = room.queue(100);
    if (first.size() != 100 || first.get(99).position() != 100) {
      throw new IllegalStateException("queue(100) returned " + first.size() + " clients");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    room.close();
  }

  /** The first 100 clients in line. */
  @Benchmark
  public List<TicketInfo> queue100() {
    return room.queue(100);
  }
}
