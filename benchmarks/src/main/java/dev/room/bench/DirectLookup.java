package dev.room.bench;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Issue 16's lookup goal (at most 300 ns at 10 million waiting) against what one memory read costs:
 * the engine's status poll beside a model of the design it now has, a token that names its own
 * record, with nothing else, in one JVM, on the same number of clients polled in the same random
 * order, in interleaved rounds.
 *
 * <p>The engine's poll reads the record its token names ({@code TicketRecords}: the token, state,
 * flags, slot and clocks in one 64-byte record), a likely miss at 10 million ({@link MemoryFloor}
 * times one such read over the same span), then the head bits at the record's slot and their tree,
 * which stay in cache unless the poll's own misses evict them. The model keeps the record's index
 * in the token's top 32 bits (the other 96 bits random), each record one 64-byte run of a {@code
 * long[]} with the token (checked whole), the state, flags and slot, and the liveness times a poll
 * reads and writes, and the head bits and tree as {@code SlotCounts} keeps them. It does the
 * engine's common poll (waiting, within its TTL, rate limit, liveness, cookie refresh, position as
 * one plus the heads ahead, under a lock) and nothing else: no arrivals, removals or slot moves, no
 * chunked records, so its figure is a floor for the design, and the ratio says how close the
 * engine's poll comes to it. (Before the engine took this design its poll was two dependent misses,
 * the token table's slot and then the ticket, and this ratio was about 0.45.)
 *
 * <pre>
 * java -Xms3500m -Xmx3500m -XX:+UseTransparentHugePages \
 *   -cp benchmarks/target/benchmarks.jar dev.room.bench.DirectLookup 10000 1000000 10000000
 * </pre>
 */
public final class DirectLookup {
  private static final int ROUNDS = 7;
  private static final int POLLS = 4_000_000;
  private static final long TTL = Lines.POLICY.ttl();
  private static final long INTERVAL = Lines.POLICY.pollInterval();
  private static final long REFRESH = Lines.POLICY.cookieRefresh();
  private static final long WAITING = 1;
  private static final long POLLED = 1 << 8;

  private final Object lock = new Object();
  private final int n;

  /** Per record, 8 longs: hi, lo, slot << 32 | flags | state, last, lastPoll, cookies, unused. */
  private final long[] rec;

  private final long[] heads; // one bit per slot, set at each record's slot (every client a group)
  private final int[] tree; // Fenwick counts of heads over blocks of 8 words, as SlotCounts keeps

  private DirectLookup(int n, long[][] tokens) {
    this.n = n;
    rec = new long[8 * n];
    int slots = n + n / 2 + 64; // about the 1.5 slots a ticket the engine's slot array holds
    heads = new long[(slots + 63) >>> 6];
    tree = new int[(heads.length + 7) / 8 + 1];
    for (int i = 0; i < n; i++) {
      int slot = i + i / 2;
      int b = 8 * i;
      rec[b] = tokens[0][i];
      rec[b + 1] = tokens[1][i];
      rec[b + 2] = (long) slot << 32 | WAITING;
      rec[b + 3] = Lines.NOW;
      rec[b + 4] = Lines.NOW;
      rec[b + 5] = Lines.NOW;
      heads[slot >>> 6] |= 1L << slot;
      for (int t = (slot >>> 9) + 1; t < tree.length; t += t & -t) {
        tree[t]++;
      }
    }
  }

  /** The position of a waiting client (shifted left 8, with the poll's flags), or a negative. */
  long poll(long hi, long lo, long now) {
    synchronized (lock) {
      long i = hi >>> 32;
      if (i >= n) {
        return -1;
      }
      int b = (int) i << 3;
      long[] r = rec;
      if (r[b] != hi || r[b + 1] != lo) {
        return -1;
      }
      long meta = r[b + 2];
      if ((meta & 0xFF) != WAITING) {
        return -2;
      }
      if (now - r[b + 3] >= TTL) {
        return -3;
      }
      long flags = 0;
      if ((meta & POLLED) != 0 && now - r[b + 4] < INTERVAL) {
        flags = 1; // rate limited
      } else {
        r[b + 4] = now;
        meta |= POLLED;
      }
      r[b + 3] = now;
      if (now - r[b + 5] >= REFRESH) {
        r[b + 5] = now;
        flags |= 2; // cookies due
      }
      r[b + 2] = meta;
      return headsThrough((int) (meta >>> 32)) << 8 | flags;
    }
  }

  private long headsThrough(int slot) {
    int w = slot >>> 6;
    int s = 0;
    for (int i = w >>> 3; i > 0; i &= i - 1) {
      s += tree[i];
    }
    for (int j = w & -8; j < w; j++) {
      s += Long.bitCount(heads[j]);
    }
    return s + Long.bitCount(heads[w] & (-1L >>> (63 - (slot & 63))));
  }

  public static void main(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: DirectLookup SIZE... (clients waiting, e.g. 10000000)");
      System.exit(2);
    }
    for (String a : args) {
      run(Integer.parseInt(a));
    }
  }

  private static void run(int n) {
    long[][] tokens = Lines.tokens(n, 0x5EED_D100L);
    InMemoryLine line = Lines.full();
    Lines.enqueue(line, tokens, null);
    long[][] named = Lines.tokens(n, 0x5EED_D101L);
    for (int i = 0; i < n; i++) {
      named[0][i] = (long) i << 32 | (named[0][i] & 0xFFFF_FFFFL); // the record's index on top
    }
    DirectLookup model = new DirectLookup(n, named);
    // tokens in polling order, side by side, as StatusLookupBenchmark lays them out
    int[] order = Shuffle.permutation(n, 0x5EED_D102L);
    long[] engine = new long[2 * n];
    long[] direct = new long[2 * n];
    for (int k = 0; k < n; k++) {
      engine[2 * k] = tokens[0][order[k]];
      engine[2 * k + 1] = tokens[1][order[k]];
      direct[2 * k] = named[0][order[k]];
      direct[2 * k + 1] = named[1][order[k]];
    }
    check(line, model, tokens, named, n);
    double[] e = new double[ROUNDS];
    double[] d = new double[ROUNDS];
    long sink = 0;
    for (int r = -1; r < ROUNDS; r++) { // round -1 warms both up
      boolean engineFirst = (r & 1) == 0;
      for (int side = 0; side < 2; side++) {
        boolean isEngine = (side == 0) == engineFirst;
        long t0 = System.nanoTime();
        int k = 0;
        for (int p = 0; p < POLLS; p++) {
          long[] polls = isEngine ? engine : direct;
          sink +=
              isEngine
                  ? line.poll(polls[k], polls[k + 1], Lines.NOW, Lines.POLICY)
                  : model.poll(polls[k], polls[k + 1], Lines.NOW);
          k = k + 2 == polls.length ? 0 : k + 2;
        }
        double ns = (System.nanoTime() - t0) / (double) POLLS;
        if (r >= 0) {
          (isEngine ? e : d)[r] = ns;
        }
      }
    }
    Arrays.sort(e);
    Arrays.sort(d);
    System.out.printf(
        "%,d waiting: engine %.1f ns (%.1f - %.1f), token naming its record %.1f ns (%.1f - %.1f),"
            + " ratio %.2f; median of %d rounds of %,d polls [%d]%n",
        n,
        e[ROUNDS / 2],
        e[0],
        e[ROUNDS - 1],
        d[ROUNDS / 2],
        d[0],
        d[ROUNDS - 1],
        d[ROUNDS / 2] / e[ROUNDS / 2],
        ROUNDS,
        POLLS,
        sink & 1);
    System.out.printf("@@direct engine_%d %.1f%n", n, e[ROUNDS / 2]); // for BenchDriver
    System.out.printf("@@direct model_%d %.1f%n", n, d[ROUNDS / 2]);
  }

  /** Both sides give every client the same position before anything is timed. */
  private static void check(
      InMemoryLine line, DirectLookup model, long[][] tokens, long[][] named, int n) {
    SplittableRandom random = new SplittableRandom(7);
    for (int c = 0; c < 1000; c++) {
      int i = random.nextInt(n);
      long o = line.poll(tokens[0][i], tokens[1][i], Lines.NOW, Lines.POLICY);
      long m = model.poll(named[0][i], named[1][i], Lines.NOW);
      if (Outcome.position(o) != m >>> 8 || m >>> 8 != i + 1) {
        throw new IllegalStateException(
            "client " + i + ": engine " + Outcome.position(o) + ", model " + (m >>> 8));
      }
    }
  }
}
