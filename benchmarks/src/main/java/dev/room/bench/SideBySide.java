package dev.room.bench;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.LongUnaryOperator;

/**
 * Two builds of the in-memory line in one JVM, measured in interleaved rounds: engine status polls
 * ({@code InMemoryLine.poll} of a random client) and removals ({@code InMemoryLine.remove} of a
 * random client) with {@code n} queued. Issue 16 compared the order-statistic treap with the B+tree
 * index this way.
 *
 * <p>Each variant is a directory of the library's compiled classes (for example {@code
 * target/classes} of two checkouts); each is loaded by its own class loader, ahead of this jar,
 * with a {@link SideBySideDriver} that builds its line from the same tokens. Rounds alternate which
 * variant goes first. A round's figure is thread CPU time per operation, so time spent waiting for
 * a CPU on a shared machine does not count (cache misses, and other processes' pollution of the
 * caches, do). Printed: per variant the median and minimum over rounds, and the median, minimum and
 * maximum of the per-round ratio old ÷ new.
 *
 * <pre>
 * java -Xms6g -Xmx6g -cp benchmarks/target/benchmarks.jar dev.room.bench.SideBySide \
 *     OLD_CLASSES NEW_CLASSES 1000000 [rounds]
 * </pre>
 */
public final class SideBySide {
  private static final int POLLS_PER_ROUND = 100_000;

  private SideBySide() {}

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[2]);
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 20;
    long[][] tokens = Lines.tokens(n, 0x5EED_0001L);
    int[] order = Shuffle.permutation(n, 0x5EED_0002L);
    URL jar =
        Path.of(SideBySide.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toUri()
            .toURL();
    String[] names = {"old", "new"};
    LongUnaryOperator[] lines = new LongUnaryOperator[2];
    for (int k = 0; k < 2; k++) {
      URL classes = new File(args[k]).toURI().toURL();
      ClassLoader loader =
          new URLClassLoader(new URL[] {classes, jar}, ClassLoader.getPlatformClassLoader());
      long t0 = System.nanoTime();
      lines[k] =
          (LongUnaryOperator)
              loader
                  .loadClass(SideBySideDriver.class.getName())
                  .getConstructor(long[].class, long[].class, int[].class)
                  .newInstance(tokens[0], tokens[1], order.clone());
      System.out.printf("%s: %,d queued in %.1f s%n", names[k], n, (System.nanoTime() - t0) / 1e9);
    }
    int batch = Math.min(1_000, n / 10);
    for (int w = 0; w < 5; w++) {
      for (LongUnaryOperator line : lines) {
        line.applyAsLong(POLLS_PER_ROUND);
        line.applyAsLong(-batch);
      }
    }
    double[][] polls = new double[2][rounds];
    double[][] removals = new double[2][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int j = 0; j < 2; j++) {
        int k = r % 2 == 0 ? j : 1 - j;
        polls[k][r] = lines[k].applyAsLong(POLLS_PER_ROUND) / (double) POLLS_PER_ROUND;
        removals[k][r] = lines[k].applyAsLong(-batch) / (double) batch;
      }
    }
    report("poll", n, polls);
    report("remove", n, removals);
  }

  private static void report(String what, int n, double[][] x) {
    double[] ratio = new double[x[0].length];
    for (int r = 0; r < ratio.length; r++) {
      ratio[r] = x[0][r] / x[1][r];
    }
    System.out.printf(
        "%s n=%d, CPU ns/op: old %.1f (min %.1f), new %.1f (min %.1f); old/new per round %.2f"
            + " (%.2f – %.2f)%n",
        what,
        n,
        median(x[0]),
        min(x[0]),
        median(x[1]),
        min(x[1]),
        median(ratio),
        min(ratio),
        max(ratio));
  }

  private static double median(double[] d) {
    double[] c = d.clone();
    Arrays.sort(c);
    int m = c.length / 2;
    return c.length % 2 == 1 ? c[m] : (c[m - 1] + c[m]) / 2;
  }

  private static double min(double[] d) {
    return Arrays.stream(d).min().orElse(Double.NaN);
  }

  private static double max(double[] d) {
    return Arrays.stream(d).max().orElse(Double.NaN);
  }
}
