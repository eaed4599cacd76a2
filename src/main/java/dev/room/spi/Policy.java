package dev.room.spi;

/**
 * The time limits a line applies, in milliseconds, as one immutable value.
 *
 * @param ttl sliding lifetime of a ticket since its client was last heard from
 * @param firstPollGrace how long a ticket may go without its client ever coming back; 0 = off
 * @param pollInterval minimum gap between two accepted status polls of one token
 * @param cookieRefresh minimum gap between two cookie refreshes on polls
 * @param readyTimeout how long a client told it is ready has to come back before its offer lapses
 *     (its slot moves on, the ticket keeps its place); an offer the client was not told of yet
 *     lapses this long after it was made
 * @param maxQueueDepth new arrivals are rejected while this many wait; 0 = unlimited
 * @param presenceWindow a waiting client not heard from for this long is absent: passed over when a
 *     slot is handed on (it keeps its place and is present again at its next poll), and an offer it
 *     was not told of yet lapses ({@link Line#lapseAbsent}); 0 = off (the six-argument constructor)
 */
public record Policy(
    long ttl,
    long firstPollGrace,
    long pollInterval,
    long cookieRefresh,
    long readyTimeout,
    long maxQueueDepth,
    long presenceWindow) {

  /** A policy without a presence window. */
  public Policy(
      long ttl,
      long firstPollGrace,
      long pollInterval,
      long cookieRefresh,
      long readyTimeout,
      long maxQueueDepth) {
    this(ttl, firstPollGrace, pollInterval, cookieRefresh, readyTimeout, maxQueueDepth, 0);
  }

  /**
   * Whether a client last heard from at {@code lastActivity} is absent at {@code now}: a page near
   * the front polls every second or holds a status request, so one silent for the whole window has
   * most likely stopped polling, and a slot offered to it would sit idle until the offer timed out
   * (issue 16). {@code lib/window.lua} applies the same rule.
   */
  public boolean absent(long now, long lastActivity) {
    return presenceWindow > 0 && now - lastActivity >= presenceWindow;
  }

  /**
   * The {@linkplain #awayOfferWindow() window} for a client away while the first-poll grace is off.
   */
  public static final long DEFAULT_AWAY_OFFER_WINDOW = 30_000;

  /**
   * How long an offer made to a client not heard from yet (after an import nothing is in flight and
   * the first in line are offered before anyone polls) waits for a poll before it passes on: the
   * first-poll grace, or {@link #DEFAULT_AWAY_OFFER_WINDOW} when the grace is off, and never longer
   * than {@link #readyTimeout}. {@code lib/retire.lua} (the Redis line's {@code lapsed}) applies
   * the same rule.
   */
  public long awayOfferWindow() {
    return Math.min(firstPollGrace > 0 ? firstPollGrace : DEFAULT_AWAY_OFFER_WINDOW, readyTimeout);
  }

  /**
   * Whether an offer has lapsed at {@code now}: it was made (or its client told of it) at {@code
   * readyAt}, and {@code away} says it was made to a client not heard from since. A lapsed offer
   * passes its slot on; the ticket goes back to waiting at its own place.
   */
  public boolean offerLapsed(long now, long readyAt, boolean away) {
    return now - readyAt >= (away ? awayOfferWindow() : readyTimeout);
  }

  /** Returns true when a ticket with these timestamps is expired at {@code now}. */
  public boolean expired(long now, long lastActivity, long issuedAt, boolean seen) {
    if (now - lastActivity >= ttl) {
      return true;
    }
    return !seen && firstPollGrace > 0 && firstPollGrace < ttl && now - issuedAt >= firstPollGrace;
  }
}
