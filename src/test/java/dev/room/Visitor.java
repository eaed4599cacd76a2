package dev.room;

import dev.room.spi.Outcome;
import dev.room.spi.Tokens;

/**
 * One visitor driven through a room's request path without HTTP, as the filter and the status
 * endpoint would drive it: arriving, polling and coming back.
 */
final class Visitor {
  final WaitingRoom room;
  final String token;
  private final long hi;
  private final long lo;

  private Visitor(WaitingRoom room, long[] t) {
    this.room = room;
    this.hi = t[0];
    this.lo = t[1];
    this.token = Tokens.format(t[0], t[1]);
  }

  /** A visitor who did not get in by the fast path and was given a ticket. */
  static Visitor arrive(WaitingRoom room) {
    Visitor v = new Visitor(room, Tokens.generate());
    v.lastArrival = room.arrive(v.hi, v.lo, v.token, "", false, false);
    return v;
  }

  long lastArrival;

  /** The arrival's outcome kind. */
  int arrived() {
    return Outcome.kind(lastArrival);
  }

  long poll() {
    return room.poll(hi, lo, room.clock().millis());
  }

  int pollKind() {
    return Outcome.kind(poll());
  }

  /** The position a poll reports; 0 when ready, -1 when unknown. */
  long position() {
    long o = poll();
    return switch (Outcome.kind(o)) {
      case Outcome.WAITING -> Outcome.position(o);
      case Outcome.READY -> 0;
      default -> -1;
    };
  }

  /** Comes back: true when admitted (the caller then holds a slot). */
  boolean claim() {
    return Outcome.kind(room.claim(hi, lo, room.clock().millis())) == Outcome.ADMITTED;
  }

  boolean ready() {
    return pollKind() == Outcome.READY;
  }
}
