package dev.room.bench;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.SplittableRandom;

/**
 * Retained heap per queued client, and the time to queue them (issue part 4).
 *
 * <p>Measures used heap after full collections, then issues {@code n} tickets (default 1,000,000)
 * on an in-memory line whose one slot is held, times the issuing, collects again and reports {@code
 * (after - before) / n}: everything the line keeps per waiting client (the ticket, its record, its
 * slot in the line index and their share of the arrays), with the default empty client key. Tokens
 * come from a seeded {@link SplittableRandom}, finished by the line as the room's are, and are not
 * kept, so they do not count. As a separate figure it times generating {@code n} tokens with {@link
 * Tokens#generate()} (the {@code SecureRandom} the filter uses for each new ticket).
 *
 * <pre>
 * java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar dev.room.bench.HeapFootprint 1000000
 * java -Xms3g -Xmx3g -cp benchmarks/target/benchmarks.jar dev.room.bench.HeapFootprint 10000000 heap10m
 * </pre>
 */
public final class HeapFootprint {
  private HeapFootprint() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    String kind = args.length > 1 ? args[1] : "heap"; // the driver's 10 million run: "heap10m"
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    // Warm the arrival path on a throwaway line so the timed run is compiled code.
    InMemoryLine warm = Lines.full();
    issue(warm, Math.min(n, 200_000), 1);
    warm = null;

    long before = settledHeap(memory);
    InMemoryLine line = Lines.full();
    long t0 = System.nanoTime();
    issue(line, n, 2);
    long issueNanos = System.nanoTime() - t0;
    long after = settledHeap(memory);
    if (line.waiting() != n) {
      throw new IllegalStateException("waiting " + line.waiting());
    }
    Reference.reachabilityFence(line);

    long g0 = System.nanoTime();
    long sink = 0;
    for (int i = 0; i < n; i++) {
      sink += Tokens.generate()[1];
    }
    long generateNanos = System.nanoTime() - g0;

    HttpBench.emit(kind, "clients", Integer.toString(n));
    HttpBench.emit(kind, "bytes_per_client", "%.1f".formatted((after - before) / (double) n));
    HttpBench.emit(kind, "retained_mib", "%.1f".formatted((after - before) / 1048576.0));
    HttpBench.emit(kind, "issue_millis", "%.1f".formatted(issueNanos / 1e6));
    HttpBench.emit(kind, "generate_millis", "%.1f".formatted(generateNanos / 1e6));
    HttpBench.emit(kind, "sink", Long.toString(sink & 1));
    HttpBench.emit(
        kind,
        "gc",
        String.join(
            "+",
            ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(b -> b.getName())
                .toList()));
  }

  private static void issue(InMemoryLine line, int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < n; i++) {
      long[] t = {random.nextLong(), random.nextLong()}; // finished by the line, as the room's
      long o = line.arrive(t, null, "", false, Lines.NOW, Lines.POLICY);
      if (Outcome.kind(o) != Outcome.WAITING) {
        throw new IllegalStateException("arrival " + i + " not queued");
      }
    }
  }

  /** Used heap after collections have stopped shrinking it. */
  private static long settledHeap(MemoryMXBean memory) {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      long now = memory.getHeapMemoryUsage().getUsed();
      if (now >= used - 64 * 1024) {
        return Math.min(now, used);
      }
      used = now;
    }
    return used;
  }
}
