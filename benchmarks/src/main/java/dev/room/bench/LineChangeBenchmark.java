package dev.room.bench;

import dev.room.TicketInfo;
import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Operations that change the line: issuing tickets, removing one client, removing by predicate.
 *
 * <p>Each changes the state it measures, so each iteration rebuilds a fresh line (untimed) and
 * times one batch on it ({@link Mode#SingleShotTime}); the score is divided by the batch size, so
 * it reads as time per operation. Single-threaded: these are admin and arrival paths, serialised by
 * the line's lock.
 *
 * <ul>
 *   <li>{@code arrive}: {@code InMemoryLine.arrive(...)} of 10,000 new clients behind 100,000
 *       waiting — the engine half of a slow-path ticket issue (token generation, cookie and page
 *       rendering are HTTP-side and not included).
 *   <li>{@code removeToken}: {@code WaitingRoom.removeToken(token)} of 10,000 clients picked at
 *       random among 100,000 waiting. Goal: at most 1 µs.
 *   <li>{@code removeTokensIf}: {@code WaitingRoom.removeTokensIf(match)} over 10,000 waiting
 *       clients, the predicate selecting the 1,000 whose client key is {@code k3} — one call.
 * </ul>
 *
 * <p>Allocation figures from {@code -prof gc} include the per-iteration rebuild and are not
 * meaningful here.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar LineChangeBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 10)
@Measurement(iterations = 20)
public class LineChangeBenchmark {
  static final int QUEUED = 100_000;
  static final int BATCH = 10_000;
  static final int SCANNED = 10_000;
  static final int MATCHED = SCANNED / 10;

  private static long seed = 0x5EED_0400L;

  /** A line of 100,000 waiting clients and 10,000 new tokens to issue. */
  @State(Scope.Thread)
  public static class Arrivals {
    InMemoryLine line;
    long[] hi;
    long[] lo;

    @Setup(Level.Iteration)
    public void setUp() {
      line = Lines.full();
      Lines.enqueue(line, Lines.tokens(QUEUED, ++seed), null);
      long[][] fresh = Lines.tokens(BATCH, ++seed);
      hi = fresh[0];
      lo = fresh[1];
    }
  }

  /** A room with 100,000 waiting clients and 10,000 of their tokens in random order. */
  @State(Scope.Thread)
  public static class Removals {
    WaitingRoom room;
    String[] victims;

    @Setup(Level.Iteration)
    public void setUp() {
      InMemoryLine line = Lines.full();
      long[][] tokens = Lines.tokens(QUEUED, ++seed);
      Lines.enqueue(line, tokens, null);
      int[] order = Shuffle.permutation(QUEUED, ++seed);
      victims = new String[BATCH];
      for (int k = 0; k < BATCH; k++) {
        victims[k] = Tokens.format(tokens[0][order[k]], tokens[1][order[k]]);
      }
      room = Rooms.over(line);
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
      if (room.queueDepth() != QUEUED - BATCH) {
        throw new IllegalStateException("depth after removals: " + room.queueDepth());
      }
      room.close();
    }
  }

  /** A room with 10,000 waiting clients whose client keys cycle through k0..k9. */
  @State(Scope.Thread)
  public static class Sweep {
    static final String[] KEYS = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"};

    WaitingRoom room;
    final Predicate<TicketInfo> match = t -> "k3".equals(t.clientKey());

    @Setup(Level.Iteration)
    public void setUp() {
      InMemoryLine line = Lines.full();
      Lines.enqueue(line, Lines.tokens(SCANNED, ++seed), KEYS);
      room = Rooms.over(line);
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
      room.close();
    }
  }

  /** Issues 10,000 tickets behind 100,000 waiting clients. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long arrive(Arrivals s) {
    long sum = 0;
    for (int i = 0; i < BATCH; i++) {
      long o = Lines.arrive(s.line, s.hi, s.lo, i, "");
      if (Outcome.kind(o) != Outcome.WAITING) {
        throw new IllegalStateException("arrival " + i + " was not queued");
      }
      sum += Outcome.position(o);
    }
    return sum;
  }

  /** Removes 10,000 clients one by one. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int removeToken(Removals s) {
    int removed = 0;
    for (String token : s.victims) {
      if (s.room.removeToken(token)) {
        removed++;
      }
    }
    if (removed != BATCH) {
      throw new IllegalStateException("removed " + removed);
    }
    return removed;
  }

  /** Scans 10,000 clients and removes the tenth that match. */
  @Benchmark
  public int removeTokensIf(Sweep s) {
    int removed = s.room.removeTokensIf(s.match);
    if (removed != MATCHED) {
      throw new IllegalStateException("removed " + removed);
    }
    return removed;
  }
}
