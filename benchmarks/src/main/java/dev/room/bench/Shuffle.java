package dev.room.bench;

import java.util.SplittableRandom;

/** Deterministic random permutations, so every fork visits clients in the same order. */
final class Shuffle {
  private Shuffle() {}

  /** A random permutation of {@code 0..n-1} (Fisher–Yates). */
  static int[] permutation(int n, long seed) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
