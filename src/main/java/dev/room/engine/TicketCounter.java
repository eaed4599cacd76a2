package dev.room.engine;

/**
 * The ticket counter: a monotonic number for every arrival, and the fresh keys that places and tie
 * orders are drawn from (one sequence, so a later key always sorts after every earlier one).
 *
 * <p>Not thread-safe: the owning line's lock guards it.
 */
final class TicketCounter {
  private long last;
  private long lastIssuedAt = Long.MIN_VALUE;

  /** The next number or key. */
  long next() {
    return ++last;
  }

  /** The last number or key handed out. */
  long current() {
    return last;
  }

  /**
   * The issue time of an arrival whose caller read {@code now} before the lock: an arrival that
   * read its clock later may have been placed first, so issue times never run against arrival
   * order.
   */
  long issuedAt(long now) {
    lastIssuedAt = Math.max(now, lastIssuedAt);
    return lastIssuedAt;
  }

  /** After a restore: every later number and key passes {@code key}, the highest restored. */
  void passAll(long key) {
    last = Math.max(last, key);
  }
}
