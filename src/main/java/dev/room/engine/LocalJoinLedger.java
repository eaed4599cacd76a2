package dev.room.engine;

import dev.room.spi.JoinLedger;
import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The join ledger of a line only this process sees: two maps, swept as they go.
 *
 * <p>Memory is bounded by what arrived recently: a join count lives until its window is over, a
 * spent challenge until it expires. Sweeps are amortised over the calls (one pass each time a map
 * has doubled since the last), so no call waits on a timer and none scans on every call.
 */
public final class LocalJoinLedger implements JoinLedger {
  private static final int MIN_SWEEP = 1024;

  private final ConcurrentHashMap<String, Count> joins = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Long> spent = new ConcurrentHashMap<>();
  private final byte[] secret = new byte[32];
  private volatile int joinsSweepAt = MIN_SWEEP;
  private volatile int spentSweepAt = MIN_SWEEP;

  public LocalJoinLedger() {
    new SecureRandom().nextBytes(secret);
  }

  /** One key's count in one window. */
  private record Count(long window, long forgetAfter, AtomicLong n) {}

  @Override
  public long countJoin(String key, long window, long forgetAfter, long now) {
    Count c =
        joins.compute(
            key,
            (k, was) ->
                was != null && was.window() == window
                    ? was
                    : new Count(window, forgetAfter, new AtomicLong()));
    long n = c.n().incrementAndGet();
    if (joins.size() >= joinsSweepAt) {
      joins.values().removeIf(e -> e.forgetAfter() <= now);
      joinsSweepAt = Math.max(MIN_SWEEP, joins.size() * 2);
    }
    return n;
  }

  @Override
  public boolean spend(String id, long expiresAt, long now) {
    Long was = spent.putIfAbsent(id, expiresAt);
    if (was != null && was > now) {
      return false;
    }
    if (was != null && !spent.replace(id, was, expiresAt)) {
      return false; // another thread spent the expired entry first
    }
    if (spent.size() >= spentSweepAt) {
      spent.values().removeIf(e -> e <= now);
      spentSweepAt = Math.max(MIN_SWEEP, spent.size() * 2);
    }
    return true;
  }

  @Override
  public byte[] secret() {
    return secret.clone();
  }

  /** Entries held now; for tests of the memory bound. */
  int size() {
    return joins.size() + spent.size();
  }
}
