package dev.room.engine;

import dev.room.spi.JoinLedger;

/**
 * At most so many new tickets per client key per minute, counted in fixed one-minute windows of the
 * room's clock.
 *
 * <p>A fixed window is one counter per key and minute, one atomic increment on Redis, and its
 * answer to "when may I come back" is exact: the start of the next minute. The price is the edge: a
 * client may take {@code perMinute} tickets at the end of one minute and as many at the start of
 * the next, so over any sixty seconds it takes at most twice the limit. The limit counts joins; it
 * never merges them, so a household behind one address shares the limit, each with its own place.
 */
public final class JoinLimiter {
  /** The window's length. */
  public static final long WINDOW_MILLIS = 60_000;

  private final JoinLedger ledger;

  public JoinLimiter(JoinLedger ledger) {
    this.ledger = ledger;
  }

  /**
   * Counts a join by {@code key} at {@code now}: 0 when it may take a ticket, else the millis until
   * its window is over (at least 1).
   */
  public long tryJoin(String key, int perMinute, long now) {
    long window = Math.floorDiv(now, WINDOW_MILLIS);
    long end = (window + 1) * WINDOW_MILLIS;
    long n = ledger.countJoin(key, window, end + WINDOW_MILLIS, now);
    return n <= perMinute ? 0 : Math.max(1, end - now);
  }
}
