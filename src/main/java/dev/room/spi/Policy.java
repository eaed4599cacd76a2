package dev.room.spi;

/**
 * The time limits a line applies, in milliseconds, as one immutable value.
 *
 * @param ttl sliding lifetime of a ticket since its client was last heard from
 * @param firstPollGrace how long a ticket may go without its client ever coming back; 0 = off
 * @param pollInterval minimum gap between two accepted status polls of one token
 * @param cookieRefresh minimum gap between two cookie refreshes on polls
 * @param readyTimeout how long a client told it is ready has to come back before its slot moves on
 * @param maxQueueDepth new arrivals are rejected while this many wait; 0 = unlimited
 */
public record Policy(
    long ttl,
    long firstPollGrace,
    long pollInterval,
    long cookieRefresh,
    long readyTimeout,
    long maxQueueDepth) {

  /** Returns true when a ticket with these timestamps is expired at {@code now}. */
  public boolean expired(long now, long lastActivity, long issuedAt, boolean seen) {
    if (now - lastActivity >= ttl) {
      return true;
    }
    return !seen && firstPollGrace > 0 && firstPollGrace < ttl && now - issuedAt >= firstPollGrace;
  }
}
