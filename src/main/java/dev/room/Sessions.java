package dev.room;

import dev.room.engine.Grants;
import dev.room.engine.KeyRing;
import dev.room.engine.SessionRegistry;
import dev.room.engine.SessionRegistry.Session;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The SESSIONS admission mode: shopping sessions that hold slots, and the signed grants that let
 * their requests through.
 *
 * <p>A session starts when a visitor's claim (or a free slot on arrival) takes a slot, and gives
 * the slot back exactly once when it ends: left, revoked by the application, completed, ended by
 * the operator, replaced by a new sale generation, or expired. Grants are checked on every gated
 * request by signature, room, generation and expiry, then against the registry (revocation).
 */
final class Sessions {
  static final Duration DEFAULT_DURATION = Duration.ofMinutes(10);
  static final Duration DEFAULT_MAX_DURATION = Duration.ofMinutes(60);

  private final WaitingRoom room;
  private final KeyRing keys = new KeyRing();
  private final SessionRegistry registry = new SessionRegistry();
  private final AtomicLong generation = new AtomicLong();
  private final AtomicInteger requests = new AtomicInteger();
  volatile AdmissionMode mode = AdmissionMode.REQUESTS;
  volatile Duration duration = DEFAULT_DURATION;
  volatile Duration maxDuration = DEFAULT_MAX_DURATION;

  Sessions(WaitingRoom room) {
    this.room = room;
  }

  boolean enabled() {
    return mode == AdmissionMode.SESSIONS;
  }

  KeyRing keys() {
    return keys;
  }

  long generation() {
    return generation.get();
  }

  int active() {
    return registry.size();
  }

  /** Requests running under sessions now (they hold no slot of their own). */
  AtomicInteger requests() {
    return requests;
  }

  /** Starts a session on a slot the caller now holds; fires CLAIM. */
  Session start(String ticket, long now) {
    long[] id = Tokens.generate();
    Session s =
        registry.start(
            Tokens.format(id[0], id[1]),
            ticket,
            now,
            duration.toMillis(),
            Math.max(duration.toMillis(), maxDuration.toMillis()),
            generation.get());
    room.fire(Event.CLAIM, s.id(), "", false);
    return s;
  }

  /** The grant for {@code s}, valid until its current expiry. */
  String grant(Session s, long now) {
    return Grants.sign(
        keys, new Grants.Grant(room.name(), s.generation(), s.id(), now, s.expiresAt()));
  }

  /** A session a grant admitted, and when that grant runs out. */
  record Admitted(Session session, long grantExpiresAt) {}

  /** What a grant admits, or null (firing GRANT_REJECTED) when it admits nothing. */
  Admitted check(String grant, long now) {
    Grants.Check c = Grants.verify(keys, grant, room.name(), generation.get(), now);
    Session s = null;
    String why = null;
    if (c.rejection() != null) {
      why = c.rejection().detail();
      if (c.rejection() == Grants.Rejection.EXPIRED) {
        Session gone = registry.get(c.grant().sessionId());
        if (gone != null && now >= gone.expiresAt()) {
          expire(gone); // give its slot back now rather than at the next reaper pass
        }
      }
    } else {
      s = registry.get(c.grant().sessionId());
      if (s == null) {
        why = Grants.Rejection.REVOKED.detail();
      } else if (now >= s.expiresAt()) {
        expire(s);
        s = null;
        why = Grants.Rejection.EXPIRED.detail();
      }
    }
    if (why != null) {
      room.fire(Event.GRANT_REJECTED, "", "", false, why);
      return null;
    }
    return new Admitted(s, c.grant().expiresAt());
  }

  /** A live session a ticket already claimed: a repeated claim consumes nothing. */
  Session forTicket(String ticket) {
    return registry.byTicket(ticket);
  }

  Session byId(String id) {
    return registry.get(id);
  }

  /**
   * Slides the session on activity. Returns true when the client's grant, valid until {@code
   * grantExpiresAt} ({@link #NO_GRANT} when it has none), has used up half its life and should be
   * re-sent.
   */
  boolean renew(Session s, long now, long grantExpiresAt) {
    registry.renew(s, now, duration.toMillis());
    return grantExpiresAt == NO_GRANT || s.expiresAt() - grantExpiresAt >= duration.toMillis() / 2;
  }

  /** Marks a request that carries no grant yet. */
  static final long NO_GRANT = Long.MIN_VALUE;

  /** Ends a session for {@code detail}; true when this call ended it. */
  boolean end(Session s, String detail) {
    if (!registry.end(s)) {
      return false;
    }
    room.exitSlot();
    room.fire(Event.SESSION_END, s.id(), "", false, detail);
    return true;
  }

  boolean endById(String id, String detail) {
    Session s = registry.get(id);
    return s != null && end(s, detail);
  }

  private void expire(Session s) {
    if (registry.end(s)) {
      room.exitSlot();
      room.fire(Event.SESSION_EXPIRE, s.id(), "", false);
    }
  }

  /** Ends sessions whose time is up; returns how many. */
  int sweep(long now) {
    int n = 0;
    for (Session s : registry.expired(now)) {
      if (registry.end(s)) {
        room.exitSlot();
        room.fire(Event.SESSION_EXPIRE, s.id(), "", false);
        n++;
      }
    }
    return n;
  }

  /** Ends every session and invalidates every grant issued so far. */
  long newGeneration() {
    long g = generation.incrementAndGet();
    for (Session s : registry.all()) {
      end(s, "generation");
    }
    return g;
  }

  static Duration checkDuration(String name, Duration d, Duration zeroMeans) {
    return Checks.duration(name, d, zeroMeans, Duration.ofSeconds(30), Duration.ofDays(7));
  }
}
