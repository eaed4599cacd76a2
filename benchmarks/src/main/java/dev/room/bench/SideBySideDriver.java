package dev.room.bench;

import dev.room.engine.InMemoryLine;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * One variant's line for {@link SideBySide}: loaded once per variant, each time by a class loader
 * that sees that variant's library classes first, so two builds of {@code InMemoryLine} run in one
 * JVM. It talks to the harness through a JDK interface only, which both loaders share.
 *
 * <p>{@code applyAsLong(k)} with k &gt; 0 polls the next k clients of a fixed random order; with k
 * &lt; 0 removes -k distinct random clients and then, untimed, queues them again at the back. It
 * returns the thread CPU time of the timed part in nanoseconds: on a shared, oversubscribed machine
 * the time a thread waits for a CPU would otherwise swamp the figure.
 */
public final class SideBySideDriver implements LongUnaryOperator {
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private final InMemoryLine line = Lines.full();
  private final long[] hi;
  private final long[] lo;
  private final int[] order;
  private final SplittableRandom random = new SplittableRandom(0x5EED_0600L);
  private int next;
  private boolean minting = true;
  private long sink;

  public SideBySideDriver(long[] hi, long[] lo, int[] order) {
    this.hi = hi;
    this.lo = lo.clone(); // a line that finishes tokens changes them: the other variant's stay
    this.order = order;
    for (int i = 0; i < hi.length; i++) {
      Lines.requireWaiting(queue(i), "queueing");
    }
  }

  /**
   * Queues client {@code i} as the room does: under a token the line finishes, or, on a build older
   * than that method, under the random token as it is.
   */
  private long queue(int i) {
    if (minting) {
      try {
        return Lines.arrive(line, hi, lo, i, "");
      } catch (NoSuchMethodError older) {
        minting = false;
      }
    }
    return line.arrive(hi[i], lo[i], "", false, Lines.NOW, Lines.POLICY);
  }

  @Override
  public long applyAsLong(long ops) {
    return ops > 0 ? polls((int) ops) : removals((int) -ops);
  }

  private long polls(int ops) {
    int n = hi.length;
    int k = next;
    long s = 0;
    long t0 = CPU.getCurrentThreadCpuTime();
    for (int j = 0; j < ops; j++) {
      if (k >= n) {
        k = 0;
      }
      int i = order[k++];
      s += line.poll(hi[i], lo[i], Lines.NOW, Lines.POLICY);
    }
    long t = CPU.getCurrentThreadCpuTime() - t0;
    next = k;
    sink += s;
    return t;
  }

  private long removals(int batch) {
    int n = hi.length;
    int[] victims = new int[batch];
    for (int j = 0; j < batch; j++) {
      int r = j + random.nextInt(n - j);
      int v = order[r];
      order[r] = order[j];
      order[j] = v;
      victims[j] = v;
    }
    long t0 = CPU.getCurrentThreadCpuTime();
    for (int v : victims) {
      if (!line.remove(hi[v], lo[v], Lines.NOW)) {
        throw new IllegalStateException("a client to remove was not in line");
      }
    }
    long t = CPU.getCurrentThreadCpuTime() - t0;
    for (int v : victims) {
      Lines.requireWaiting(queue(v), "queueing again");
    }
    return t;
  }

  /** Keeps the polls' results observable, so no loop is optimised away. */
  public long sink() {
    return sink;
  }
}
