package dev.room.redis;

import dev.room.TokenNotFoundException;
import dev.room.spi.Move;
import dev.room.spi.Outcome;
import java.util.List;

/** Decodes the scripts' replies: lists whose first elements are a status or outcome. */
final class Replies {
  static final long NOT_FOUND = -2;
  static final long NOT_WAITING = -3;

  private Replies() {}

  static long num(List<Object> r, int i) {
    return (Long) r.get(i);
  }

  static long code(List<Object> r) {
    return num(r, 0);
  }

  /** Throws what the in-memory line throws for a script's error status. */
  static long checked(long status) {
    if (status == NOT_FOUND) {
      throw new TokenNotFoundException();
    }
    if (status == NOT_WAITING) {
      throw new IllegalStateException("the client was already told it is ready");
    }
    return status;
  }

  /** A promote or quote reply: status, from, to, depth. */
  static Move move(List<Object> r) {
    checked(code(r));
    return new Move(num(r, 1), num(r, 2), num(r, 3));
  }

  /** A kind, position and flags reply as an {@link Outcome}. */
  static long outcome(List<Object> r) {
    return outcome(r, 0);
  }

  /** The kind, position and flags at {@code at}, {@code at + 1}, {@code at + 2} of a reply. */
  static long outcome(List<Object> r, int at) {
    return outcome(num(r, at), num(r, at + 1), num(r, at + 2));
  }

  /** A script's kind, position and flags as an {@link Outcome}. */
  static long outcome(long kind, long position, long f) {
    long flags = 0;
    if ((f & 1) != 0) {
      flags |= Outcome.RATE_LIMITED;
    }
    if ((f & 2) != 0) {
      flags |= Outcome.REFRESH_COOKIES;
    }
    if ((f & 4) != 0) {
      flags |= Outcome.EVICTED;
    }
    if ((f & 8) != 0) {
      flags |= Outcome.TIMED_OUT;
    }
    if ((f & 16) != 0) {
      flags |= Outcome.PROMOTED;
    }
    if ((f & 32) != 0) {
      flags |= Outcome.FIRST_READY;
    }
    if ((f & 64) != 0) {
      flags |= Outcome.REJOINED;
    }
    return Outcome.of((int) kind, position, flags);
  }
}
