package dev.room.bench;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.util.SplittableRandom;

/**
 * Builds the lines the engine benchmarks run against: a held slot and {@code n} waiting tickets.
 *
 * <p>Tokens come from a seeded {@link SplittableRandom}, so they are as uniformly spread as the
 * room's {@code SecureRandom} tokens and every fork sees the same line. Benchmark tokens are never
 * printed.
 */
final class Lines {
  /** The benchmarks' wall clock: every call passes this instant, so nothing ever expires. */
  static final long NOW = 1_700_000_000_000L;

  /** Ticket lifetime 5 min, no first-poll grace, polls 1/s, cookie refresh 100 s, offer 60 s. */
  static final Policy POLICY = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);

  private Lines() {}

  /** A line with capacity 1, its one slot taken, and no one waiting yet. */
  static InMemoryLine full() {
    InMemoryLine line = new InMemoryLine(1);
    if (!line.tryEnter()) {
      throw new IllegalStateException("a fresh line must admit");
    }
    return line;
  }

  /** Fresh random tokens as parallel arrays {hi[], lo[]}. */
  static long[][] tokens(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] hi = new long[n];
    long[] lo = new long[n];
    for (int i = 0; i < n; i++) {
      hi[i] = random.nextLong();
      lo[i] = random.nextLong();
    }
    return new long[][] {hi, lo};
  }

  /** Queues every token behind the held slot; fails loudly if any is not told to wait. */
  static void enqueue(InMemoryLine line, long[][] tokens, String[] clientKeys) {
    long[] hi = tokens[0];
    long[] lo = tokens[1];
    for (int i = 0; i < hi.length; i++) {
      String key = clientKeys == null ? "" : clientKeys[i % clientKeys.length];
      long o = arrive(line, hi, lo, i, key);
      if (Outcome.kind(o) != Outcome.WAITING) {
        throw new IllegalStateException("ticket " + i + " was not queued: kind " + Outcome.kind(o));
      }
    }
  }

  /**
   * Client {@code i} arrives the way the room's arrivals do: its random token goes to the line to
   * finish ({@code InMemoryLine.arrive(long[], ...)}, which names the ticket's record in the low 32
   * bits), and {@code lo[i]} becomes the token the client was given.
   */
  static long arrive(InMemoryLine line, long[] hi, long[] lo, int i, String key) {
    long[] t = {hi[i], lo[i]};
    long o = line.arrive(t, null, key, false, NOW, POLICY);
    lo[i] = t[1];
    return o;
  }

  /** Checks an outcome is a waiting ticket's, so a benchmark never measures a miss. */
  static void requireWaiting(long outcome, String what) {
    if (Outcome.kind(outcome) != Outcome.WAITING) {
      throw new IllegalStateException(what + ": expected WAITING, got " + Outcome.kind(outcome));
    }
  }
}
