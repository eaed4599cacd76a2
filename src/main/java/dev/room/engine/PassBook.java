package dev.room.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The VIP passes granted: token to expiry. Thread-safe on its own (a concurrent map), so a pass
 * check takes no line lock.
 */
final class PassBook {
  /** Passes as exported: by expiry, then token, the order the Redis line's pass set reads in. */
  private static final Comparator<long[]> PASS_ORDER =
      Comparator.<long[]>comparingLong(p -> p[2])
          .thenComparing(p -> p[0], Long::compareUnsigned)
          .thenComparing(p -> p[1], Long::compareUnsigned);

  private final ConcurrentHashMap<PassKey, Long> passes = new ConcurrentHashMap<>();

  void grant(long hi, long lo, long expiresAt) {
    passes.put(new PassKey(hi, lo), expiresAt);
  }

  /** The pass's expiry, or 0 if there is none. */
  long expiry(long hi, long lo) {
    Long e = passes.get(new PassKey(hi, lo));
    return e == null ? 0 : e;
  }

  /** Drops the passes expired by {@code now}; returns how many. */
  int sweep(long now) {
    int before = passes.size();
    passes.values().removeIf(expiresAt -> expiresAt <= now);
    return Math.max(0, before - passes.size());
  }

  /**
   * Hands every pass as {hi, lo, expiresAt} to {@code sink}, sorted: a map's order is not one a
   * restore could reproduce, so a round trip would reorder.
   */
  void export(Consumer<long[]> sink) {
    List<long[]> sorted = new ArrayList<>(passes.size());
    passes.forEach((k, expiresAt) -> sorted.add(new long[] {k.hi(), k.lo(), expiresAt}));
    sorted.sort(PASS_ORDER);
    sorted.forEach(sink);
  }

  /** Reads {hi, lo, expiresAt} passes into a map for {@link #replace}. */
  static Map<PassKey, Long> read(java.util.Iterator<long[]> passList) {
    Map<PassKey, Long> read = new HashMap<>();
    while (passList.hasNext()) {
      long[] p = passList.next();
      read.put(new PassKey(p[0], p[1]), p[2]);
    }
    return read;
  }

  void replace(Map<PassKey, Long> restored) {
    passes.clear();
    passes.putAll(restored);
  }

  record PassKey(long hi, long lo) {}
}
