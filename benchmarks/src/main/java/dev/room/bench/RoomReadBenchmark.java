package dev.room.bench;

import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Two cheap public reads on a room with 100,000 clients waiting.
 *
 * <p>{@code queueDepth} is {@code WaitingRoom.queueDepth()}, the number of waiting clients (one
 * volatile read). {@code hasValidPass} is {@code WaitingRoom.hasValidPass(passToken)} for a pass
 * the room granted: validating and parsing the 32-character token, the pass-table lookup and the
 * clock comparison.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RoomReadBenchmark -t 1 -prof gc
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
public class RoomReadBenchmark {
  static final int QUEUED = 100_000;

  private WaitingRoom room;
  private String pass;

  @Setup(Level.Trial)
  public void setUp() {
    InMemoryLine line = Lines.full();
    Lines.enqueue(line, Lines.tokens(QUEUED, 0x5EED_0301L), null);
    room = Rooms.over(line);
    pass = room.grantPass();
    if (room.queueDepth() != QUEUED || !room.hasValidPass(pass)) {
      throw new IllegalStateException("room not set up: depth " + room.queueDepth());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    room.close();
  }

  /** Clients waiting. */
  @Benchmark
  public long queueDepth() {
    return room.queueDepth();
  }

  /** Whether a granted, unexpired pass is valid. */
  @Benchmark
  public boolean hasValidPass() {
    return room.hasValidPass(pass);
  }
}
