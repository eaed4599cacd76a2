package dev.room.redis;

import dev.room.spi.LineUnavailableException;
import dev.room.spi.Tokens;
import io.lettuce.core.Range;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScoredValueScanCursor;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The room's VIP passes in Redis: one sorted set from pass token to expiry, so reading and sweeping
 * are each one plain command (atomic on its own, no script needed). Granting is the line's {@code
 * pass} script, which marks the line used in the same step.
 */
final class PassBook {
  private final RedisLink link;
  private final String key;
  private final boolean failOpen;

  PassBook(RedisLink link, RoomKeys keys, boolean failOpen) {
    this.link = link;
    this.key = keys.passes();
    this.failOpen = failOpen;
  }

  /** The expiry of a pass, or 0; while Redis is down, 0 when failing open (nobody needs one). */
  long expiry(long hi, long lo) {
    String token = Tokens.format(hi, lo);
    try {
      Double expiry = link.call(c -> c.zscore(key, token));
      return expiry == null ? 0 : expiry.longValue();
    } catch (LineUnavailableException e) {
      if (failOpen) {
        return 0;
      }
      throw e;
    }
  }

  /** Forgets passes expired at {@code now}; none while Redis is down. */
  int sweep(long now) {
    try {
      Long n =
          link.call(
              c -> c.zremrangebyscore(key, Range.create(Double.NEGATIVE_INFINITY, (double) now)));
      return n == null ? 0 : n.intValue();
    } catch (LineUnavailableException e) {
      return 0;
    }
  }

  /** Feeds every pass to {@code sink} as {hi, lo, expiresAt}, by ZSCAN pages, each pass once. */
  void export(Consumer<long[]> sink) {
    Set<String> sent = new HashSet<>();
    ScanCursor cursor = ScanCursor.INITIAL;
    while (true) {
      ScanCursor from = cursor;
      ScoredValueScanCursor<String> page = link.call(c -> c.zscan(key, from));
      for (ScoredValue<String> v : page.getValues()) {
        String t = v.getValue();
        if (sent.add(t)) {
          sink.accept(new long[] {Tokens.hi(t), Tokens.lo(t), (long) v.getScore()});
        }
      }
      if (page.isFinished()) {
        return;
      }
      cursor = page;
    }
  }
}
