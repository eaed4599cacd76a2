package dev.room;

import dev.room.Admission.Queued;
import dev.room.Admission.Verdict;
import dev.room.spi.Outcome;
import dev.room.spi.Tokens;

/**
 * The order in which a request is judged: grant, mode, claim, fast path, arrival. The filter's gate
 * and the status endpoint both ask here, so the order is written once; what is written back to the
 * client is theirs. Knows nothing of servlets: a {@link Visitor} reads the request.
 */
final class Gatekeeper {
  /**
   * How the gatekeeper sees a request {@code Q} and its response {@code S}; one stateless instance
   * serves every request, so asking allocates nothing.
   */
  interface Visitor<Q, S> {
    /** The value of the room's cookie {@code base}, or null. */
    String cookie(WaitingRoom room, Q request, String base);

    /** The client key of a newcomer, "" for none. */
    String clientKey(WaitingRoom room, Q request);

    /** The identity a newcomer's ticket is bound to, or null for none (a fair line). */
    default String identity(WaitingRoom room, Q request) {
      return null;
    }

    /** The client's grant admits nothing: from now on it counts as no grant. */
    void grantRefused(WaitingRoom room, Q request, S response);

    // join guard (r3-guard)
    /** The address the request came from: what the join limit counts by without a client key. */
    String remoteAddress(Q request);
  }

  private static final long GONE = Outcome.of(Outcome.UNKNOWN, 0, 0);

  private Gatekeeper() {}

  /** A gated request: may it in, and how; or where does it wait. */
  static <Q, S> Admission admit(WaitingRoom r, Q req, S res, Visitor<Q, S> v) {
    Sessions sessions = r.sessions();
    if (sessions.enabled()) {
      String grant = v.cookie(r, req, Cookies.SESSION);
      if (grant != null && !grant.isEmpty()) {
        Sessions.Admitted a = sessions.check(grant, r.clock().millis());
        if (a != null) {
          return a;
        }
        v.grantRefused(r, req, res);
      }
    }
    RoomMode mode = r.mode();
    String ticket = v.cookie(r, req, Cookies.TICKET);
    boolean stale = ticket != null && !ticket.isEmpty();
    if (mode == RoomMode.PASSTHROUGH) {
      if (stale && Tokens.valid(ticket) && r.liveQueueDepth() != 0) {
        r.passedThrough(Tokens.hi(ticket), Tokens.lo(ticket)); // let in: its place is not needed
      }
      return Verdict.PASS;
    }
    if (stale && Tokens.valid(ticket)) {
      long now = r.clock().millis();
      long o;
      if (sessions.enabled()) {
        Sessions.Claim c = sessions.claim(ticket, now); // one step with the session's start
        if (c.session() != null) {
          return new Sessions.Admitted(c.session(), Sessions.NO_GRANT);
        }
        o = c.outcome();
      } else {
        o = r.liveQueueDepth() != 0 ? r.claim(Tokens.hi(ticket), Tokens.lo(ticket), now) : GONE;
      }
      int kind = Outcome.kind(o);
      if (kind == Outcome.ADMITTED) {
        return entered(r, ticket);
      }
      if (kind == Outcome.WAITING) {
        // Closed too: the visitor keeps its place, and its page notices a reopening in place.
        return new Queued(ticket, o, Outcome.has(o, Outcome.RATE_LIMITED));
      }
    }
    if (mode == RoomMode.CLOSED) {
      return Verdict.CLOSED;
    }
    if (r.tryEnter()) {
      return entered(r, "");
    }
    return arrive(r, req, v, stale);
  }

  /** A newcomer (or a ticket the line no longer knows) joins the line, or comes in at once. */
  private static <Q, S> Admission arrive(WaitingRoom r, Q req, Visitor<Q, S> v, boolean stale) {
    String clientKey = v.clientKey(r, req);
    String identity = v.identity(r, req);
    String pass = v.cookie(r, req, Cookies.PASS);
    boolean hasPass = pass != null && r.hasValidPass(pass);
    // join guard (r3-guard): a pass holder was let in before; everyone else may be asked first
    JoinGuard guard = r.joinGuard();
    if (!hasPass && guard.enabled()) {
      String key = clientKey.isEmpty() ? v.remoteAddress(req) : clientKey;
      String solution = v.cookie(r, req, JoinGuard.COOKIE);
      JoinGuard.Refused refused = guard.check(r.name(), key, solution, r.clock().millis());
      if (refused != null) {
        return refused;
      }
    }
    long o;
    String token;
    do {
      long[] t = Tokens.generate();
      o = r.arrive(t, identity, clientKey, hasPass, stale); // the line may finish the token
      token = Tokens.format(t[0], t[1]);
    } while (Outcome.kind(o) == Outcome.UNKNOWN);
    return switch (Outcome.kind(o)) {
      case Outcome.ADMITTED -> entered(r, token);
      case Outcome.REJECTED -> Verdict.FULL;
      default -> new Queued(token, o, false);
    };
  }

  /**
   * A slot was taken for {@code ticket}: the request runs holding it, or a session starts on it.
   */
  private static Admission entered(WaitingRoom r, String ticket) {
    if (!r.sessions().enabled()) {
      return Verdict.ENTERED;
    }
    return new Sessions.Admitted(r.sessions().start(ticket, r.clock().millis()), Sessions.NO_GRANT);
  }

  /**
   * A status poll: a live session, the gate off, no ticket or a foreign one, or where the ticket
   * stands now (one line operation).
   */
  static <Q, S> Admission status(WaitingRoom r, Q req, Visitor<Q, S> v) {
    long now = r.clock().millis();
    Sessions sessions = r.sessions();
    if (sessions.enabled()) {
      String grant = v.cookie(r, req, Cookies.SESSION);
      if (grant != null && !grant.isEmpty()) {
        Sessions.Admitted a = sessions.check(grant, now);
        if (a != null) {
          return a;
        }
      }
    }
    if (r.mode() == RoomMode.PASSTHROUGH) {
      return Verdict.PASS; // the gate is off: everyone may come in
    }
    String ticket = v.cookie(r, req, Cookies.TICKET);
    if (ticket == null || ticket.isEmpty()) {
      return Verdict.NO_COOKIES;
    }
    if (!Tokens.valid(ticket)) {
      return Verdict.UNTRACKED;
    }
    long o = r.poll(Tokens.hi(ticket), Tokens.lo(ticket), ticket, now);
    return new Queued(ticket, o, Outcome.has(o, Outcome.RATE_LIMITED));
  }
}
