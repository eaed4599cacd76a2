package dev.room;

import dev.room.spi.Outcome;

/**
 * What the {@link Gatekeeper} decided for one request. The common cases are constants ({@link
 * Verdict}), so the fast path allocates nothing; a visitor in line is {@link Queued}; a live
 * shopping session is {@link Sessions.Admitted}; a newcomer the join guard turns away is {@link
 * JoinGuard.Refused}.
 */
sealed interface Admission
    permits Admission.Verdict, Admission.Queued, Sessions.Admitted, JoinGuard.Refused {

  /** The decisions that carry nothing but their name. */
  enum Verdict implements Admission {
    /** The gate is off ({@code PASSTHROUGH}): the application runs without a slot. */
    PASS,
    /** The request took a slot (no sessions): it runs holding it. */
    ENTERED,
    /** A closed sale and a newcomer: no ticket is issued. */
    CLOSED,
    /** The line is at its maximum depth: the arrival is turned away. */
    FULL,
    /** A status poll without a ticket cookie. */
    NO_COOKIES,
    /** A status poll with a ticket this room cannot have issued. */
    UNTRACKED
  }

  /**
   * A ticket in line, {@code token} being the ticket cookie to (re-)send; {@code reload} when the
   * visitor came back sooner than the poll interval. The line's packed outcome is decoded here and
   * nowhere else in the servlet front.
   */
  record Queued(String token, long outcome, boolean reload) implements Admission {
    /** Its place, 1 being next; 0 when it has none. */
    long position() {
      return Outcome.position(outcome);
    }

    /** Whether it holds an offer (a reserved slot). */
    boolean offered() {
      return Outcome.kind(outcome) == Outcome.READY;
    }

    /** Whether it still waits (neither offered, nor gone, moved or admitted). */
    boolean waiting() {
      int kind = Outcome.kind(outcome);
      return kind == Outcome.WAITING;
    }

    /** Whether its place moved to another device (its identity joined again there). */
    boolean moved() {
      return Outcome.kind(outcome) == Outcome.MOVED;
    }

    /** Whether the client's cookies should be sent again. */
    boolean refreshCookies() {
      return Outcome.has(outcome, Outcome.REFRESH_COOKIES);
    }
  }
}
