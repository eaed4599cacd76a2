package dev.room;

import dev.room.engine.Grants;
import dev.room.engine.KeyRing;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Outcome;
import dev.room.spi.SessionStore;
import dev.room.spi.SessionStore.Session;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The SESSIONS admission mode: shopping sessions that hold slots, and the signed grants that let
 * their requests through.
 *
 * <p>A session starts when a visitor's claim (or a free slot on arrival) takes a slot, and gives
 * the slot back exactly once when it ends: left, revoked by the application, completed, ended by
 * the operator, replaced by a new sale generation, or expired. Grants are checked on every gated
 * request by signature, room, generation and expiry, then against the store (revocation).
 *
 * <p>The sessions live in a {@link SessionStore}: this JVM's for an in-memory line, the line's own
 * shared store for a line that several instances share ({@code RedisLine}), so a grant from any
 * instance is honoured by every other and an ending on one is seen by all within a poll interval.
 * The default signing key's secret comes from the store ({@link SessionStore#sharedSecret}), so the
 * instances on one shared store sign alike without configuration.
 *
 * <p>Implementation notes. The store is the truth about a session: every path that resumes one (a
 * grant, a repeated claim by its ticket, a status poll, leave) goes through {@link #resume}, which
 * ends a session whose time is up there and then. A grant is re-sent whenever the session slid past
 * it, and a grant that ran out while its session lives (a response that crossed a newer one) is
 * honoured by the store and replaced, so a session and its grant expire together. Claiming a
 * ticket's slot and starting its session are one step per ticket (a lock stripe keyed by the
 * ticket, then the line's lock): two tabs reloading together get one session.
 */
final class Sessions {
  static final Duration DEFAULT_DURATION = Duration.ofMinutes(10);
  static final Duration DEFAULT_MAX_DURATION = Duration.ofMinutes(60);

  private final EventSink events;
  private final LongConsumer returned;
  private final LongConsumer exit;
  private final Supplier<String> name;
  private final TicketClaim claims;
  private final LongSupplier live;
  private final InstantSource clock;
  private final SessionStore store;
  private final KeyRing keys = new KeyRing();
  private volatile boolean keyShared;
  private final AtomicInteger requests = new AtomicInteger();
  private final Object[] claimLocks = new Object[64];
  volatile AdmissionMode mode = AdmissionMode.REQUESTS;
  volatile Duration duration = DEFAULT_DURATION;
  volatile Duration maxDuration = DEFAULT_MAX_DURATION;

  /** A ticket's claim of its slot on the line, with the events it implies. */
  @FunctionalInterface
  interface TicketClaim {
    long claim(long hi, long lo, long now);
  }

  /**
   * Sessions kept in {@code store} (which gives an ended session's slot back), telling the room
   * when one came back ({@code returned}) or must be let go by the line ({@code exit}), publishing
   * to {@code events}, binding grants to the room's {@code name}, claiming tickets through {@code
   * claims} while the line holds anyone ({@code live}).
   */
  Sessions(
      SessionStore store,
      LongConsumer returned,
      LongConsumer exit,
      EventSink events,
      Supplier<String> name,
      TicketClaim claims,
      LongSupplier live,
      InstantSource clock) {
    this.store = store;
    this.returned = returned;
    this.exit = exit;
    this.events = events;
    this.name = name;
    this.claims = claims;
    this.live = live;
    this.clock = clock;
    for (int i = 0; i < claimLocks.length; i++) {
      claimLocks[i] = new Object();
    }
  }

  boolean enabled() {
    return mode == AdmissionMode.SESSIONS;
  }

  KeyRing keys() {
    return keys;
  }

  /** The keys, with the default key's secret taken from the store once it can be asked. */
  private KeyRing sharedKeys() {
    if (!keyShared) {
      synchronized (keys) {
        if (!keyShared) {
          keys.shareDefault(store.sharedSecret(keys.defaultSecret()));
          keyShared = true;
        }
      }
    }
    return keys;
  }

  long generation() {
    return store.generation();
  }

  int active() {
    return store.count();
  }

  /** Requests running under sessions now (they hold no slot of their own). */
  AtomicInteger requests() {
    return requests;
  }

  /**
   * Starts a session on a slot the caller now holds; fires CLAIM. When the store cannot be reached
   * the slot goes back to the line and the failure propagates.
   */
  Session start(String ticket, long now) {
    long[] id = Tokens.generate();
    Session s;
    try {
      s =
          store.start(
              Tokens.format(id[0], id[1]),
              ticket,
              now,
              duration.toMillis(),
              Math.max(duration.toMillis(), maxDuration.toMillis()));
    } catch (LineUnavailableException e) {
      exit.accept(now);
      throw e;
    }
    events.fire(Event.CLAIM, s.id(), "", false);
    return s;
  }

  /** The grant for {@code s}, valid until {@code until} (its expiry when renewed). */
  String grant(Session s, long now, long until) {
    return Grants.sign(
        sharedKeys(), new Grants.Grant(name.get(), s.generation(), s.id(), now, until));
  }

  /**
   * What a returning ticket's claim came to: the session it holds ({@code outcome} then
   * meaningless), or null and the line's outcome for it.
   */
  record Claim(Session session, long outcome) {}

  /**
   * A returning ticket holder: resumes the live session its ticket already claimed (a repeated
   * claim consumes nothing), or claims the ticket's slot and starts its session, as one step per
   * ticket, so concurrent claims of one ticket start one session.
   */
  Claim claim(String ticket, long now) {
    synchronized (claimLocks[ticket.hashCode() & (claimLocks.length - 1)]) {
      Session again = resume(store.byTicket(ticket, now), now);
      if (again != null) {
        return new Claim(again, 0);
      }
      if (live.getAsLong() == 0) {
        return new Claim(null, Outcome.of(Outcome.UNKNOWN, 0, 0));
      }
      long o = claims.claim(Tokens.hi(ticket), Tokens.lo(ticket), now);
      if (Outcome.kind(o) == Outcome.ADMITTED) {
        return new Claim(start(ticket, now), o);
      }
      return new Claim(null, o);
    }
  }

  /** {@code s} if it is live at {@code now}; a session whose time is up ends here (null). */
  private Session resume(Session s, long now) {
    if (s == null) {
      return null;
    }
    if (now >= s.expiresAt()) {
      expire(s, now); // its slot comes back now rather than at the next reaper pass
      return null;
    }
    return s;
  }

  /** A session a grant admitted, and when that grant runs out. */
  record Admitted(Session session, long grantExpiresAt) implements Admission {}

  /** What a grant admits, or null (firing GRANT_REJECTED) when it admits nothing. */
  Admitted check(String grant, long now) {
    KeyRing k = sharedKeys();
    long generation = store.generation();
    Grants.Check c = Grants.verify(k, grant, name.get(), generation, now);
    if (c.rejection() == Grants.Rejection.REVOKED && c.grant().generation() > generation) {
      // a newer generation than this instance has seen: another instance started it just now
      c = Grants.verify(k, grant, name.get(), store.generation(), now);
    }
    Session s = null;
    String why = null;
    if (c.rejection() == Grants.Rejection.EXPIRED) {
      // genuine, this room's, this generation's: the store says whether its session lives on
      s = resume(store.get(c.grant().sessionId(), now), now);
      if (s == null) {
        why = Grants.Rejection.EXPIRED.detail();
      }
    } else if (c.rejection() != null) {
      why = c.rejection().detail();
    } else {
      Session live = store.get(c.grant().sessionId(), now);
      s = resume(live, now);
      if (s == null) {
        why = (live == null ? Grants.Rejection.REVOKED : Grants.Rejection.EXPIRED).detail();
      }
    }
    if (why != null) {
      events.fire(Event.GRANT_REJECTED, "", "", false, why);
      return null;
    }
    return new Admitted(s, c.grant().expiresAt());
  }

  /**
   * Slides the session on activity. Returns the expiry a new grant must carry when the session
   * would outlive the client's grant, valid until {@code grantExpiresAt} ({@link #NO_GRANT} when it
   * has none); else {@link #NO_GRANT}: the grant in hand expires with the session.
   */
  long renew(Session s, long now, long grantExpiresAt) {
    long until = store.renew(s, now, duration.toMillis());
    return grantExpiresAt == NO_GRANT || until > grantExpiresAt ? until : NO_GRANT;
  }

  /** Marks a request that carries no grant yet, and a renewal that needs no new one. */
  static final long NO_GRANT = Long.MIN_VALUE;

  /** Ends a session for {@code detail}; true when this call ended it. */
  boolean end(Session s, String detail) {
    long now = clock.millis();
    if (!store.end(s, now)) {
      return false;
    }
    returned.accept(now);
    events.fire(Event.SESSION_END, s.id(), "", false, detail);
    return true;
  }

  /** Ends the session {@code id} wherever it was started. */
  boolean endById(String id, String detail) {
    Session s = store.get(id, clock.millis());
    return s != null && end(s, detail);
  }

  private void expire(Session s, long now) {
    if (store.expire(s, now)) {
      returned.accept(now);
      events.fire(Event.SESSION_EXPIRE, s.id(), "", false);
    }
  }

  /** Ends sessions whose time is up; returns how many. */
  int sweep(long now) {
    int n = 0;
    for (String id : store.sweep(now)) {
      returned.accept(now);
      events.fire(Event.SESSION_EXPIRE, id, "", false);
      n++;
    }
    return n;
  }

  /** Ends every session and invalidates every grant issued so far. */
  long newGeneration() {
    long now = clock.millis();
    return store.newGeneration(
        now,
        id -> {
          returned.accept(now);
          events.fire(Event.SESSION_END, id, "", false, "generation");
        });
  }

  static Duration checkDuration(String name, Duration d, Duration zeroMeans) {
    return Checks.duration(name, d, zeroMeans, Duration.ofSeconds(30), Duration.ofDays(7));
  }
}
