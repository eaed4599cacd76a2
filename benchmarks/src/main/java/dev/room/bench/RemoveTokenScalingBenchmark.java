package dev.room.bench;

import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Tokens;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code WaitingRoom.removeToken(token)} with {@code queued} clients waiting, at 10,000 to
 * 10,000,000 (issue 16: at most 1 µs at 1,000,000).
 *
 * <p>{@link LineChangeBenchmark#removeToken} rebuilds its line for every iteration, which at 10
 * million would take minutes per iteration; here the line is built once per fork and each iteration
 * removes {@value #BATCH} clients picked at random (single shot, time divided by the batch), then,
 * untimed, queues them again at the back with the same tokens, so the line keeps its length. The
 * clients removed are spread over the whole line, so the token table and the index are read cold,
 * as a removal by an operator would read them. Forks get a 3 GB heap for the 10 million run (the
 * line, the token arrays and, for side-by-side runs, the old treap line all fit), on transparent
 * huge pages as README advises for big lines.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RemoveTokenScalingBenchmark -p queued=1000000
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g", "-XX:+UseTransparentHugePages"})
@Warmup(iterations = 60)
@Measurement(iterations = 30)
public class RemoveTokenScalingBenchmark {
  static final int BATCH = 1_000;

  @Param({"10000", "100000", "1000000", "10000000"})
  public int queued;

  private InMemoryLine line;
  private WaitingRoom room;
  private long[] hi;
  private long[] lo;
  private int[] perm;
  private int[] victims;
  private String[] tokens;
  private final SplittableRandom random = new SplittableRandom(0x5EED_0500L);

  @Setup(Level.Trial)
  public void build() {
    line = Lines.full();
    long[][] t = Lines.tokens(queued, 0x5EED_0501L);
    Lines.enqueue(line, t, null);
    hi = t[0];
    lo = t[1];
    room = Rooms.over(line);
    perm = Shuffle.permutation(queued, 0x5EED_0502L);
    victims = new int[BATCH];
    tokens = new String[BATCH];
  }

  @Setup(Level.Iteration)
  public void pick() {
    for (int k = 0; k < BATCH; k++) { // a fresh random batch of distinct clients
      int j = k + random.nextInt(queued - k);
      int v = perm[j];
      perm[j] = perm[k];
      perm[k] = v;
      victims[k] = v;
      tokens[k] = Tokens.format(hi[v], lo[v]);
    }
  }

  @TearDown(Level.Iteration)
  public void putBack() {
    for (int k = 0; k < BATCH; k++) {
      long o = Lines.arrive(line, hi, lo, victims[k], ""); // a fresh token, as a rejoin gets
      Lines.requireWaiting(o, "re-queue");
    }
    if (line.waiting() != queued) {
      throw new IllegalStateException("waiting " + line.waiting());
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    room.close();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int removeToken() {
    int removed = 0;
    for (String token : tokens) {
      if (room.removeToken(token)) {
        removed++;
      }
    }
    if (removed != BATCH) {
      throw new IllegalStateException("removed " + removed);
    }
    return removed;
  }
}
