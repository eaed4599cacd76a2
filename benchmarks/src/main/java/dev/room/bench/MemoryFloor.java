package dev.room.bench;

import java.util.Arrays;

/**
 * The latency of one dependent memory read on this machine: a walk around one random cycle over an
 * {@code int[]} of the given size, so that every read's address comes from the read before it and
 * no prefetcher can guess it (issue 16: why a random client's status lookup at 10 million cannot be
 * within 1.5 times the lookup at 10,000, whatever the index).
 *
 * <p>A lookup at 10 million makes three such reads one after the other (the token table's slot, the
 * ticket it names, the head bits at the ticket's slot), so three times the figure at a size far
 * past the caches is its floor. Run with the flags the lookup benchmark's forks use:
 *
 * <pre>
 * java -Xmx3g -XX:+UseTransparentHugePages -XX:+AlwaysPreTouch \
 *   -cp benchmarks/target/benchmarks.jar dev.room.bench.MemoryFloor 10000 1000000 40000000
 * </pre>
 */
public final class MemoryFloor {
  private static final int HOPS = 20_000_000;
  private static final int ROUNDS = 7;

  private MemoryFloor() {}

  public static void main(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: MemoryFloor SIZE... (ints in the cycle, e.g. 40000000)");
      System.exit(2);
    }
    for (String a : args) {
      int[] next = cycle(Integer.parseInt(a));
      double[] ns = new double[ROUNDS];
      int p = 0;
      for (int r = 0; r < ROUNDS; r++) {
        long t0 = System.nanoTime();
        for (int k = 0; k < HOPS; k++) {
          p = next[p];
        }
        ns[r] = (System.nanoTime() - t0) / (double) HOPS;
      }
      Arrays.sort(ns);
      System.out.printf(
          "%,d ints (%,d KiB): %.1f ns a dependent read, median of %d rounds (%.1f - %.1f) [%d]%n",
          next.length, next.length / 256, ns[ROUNDS / 2], ROUNDS, ns[0], ns[ROUNDS - 1], p);
      System.out.printf("@@floor ints_%d %.1f%n", next.length, ns[ROUNDS / 2]); // for BenchDriver
    }
  }

  /** One cycle through every index, in a random order: next[i] is the index visited after i. */
  private static int[] cycle(int n) {
    int[] order = Shuffle.permutation(n, 0x5EED_F100L);
    int[] next = new int[n];
    for (int i = 0; i < n; i++) {
      next[order[i]] = order[(i + 1) % n];
    }
    return next;
  }
}
