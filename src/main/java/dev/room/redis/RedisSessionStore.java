package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.SessionStore;
import io.lettuce.core.SetArgs;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The admission sessions of a Redis room, shared by every instance on it: a session started on one
 * instance admits on all, and an ending on any is final everywhere.
 *
 * <p>Each session holds its slot outside every instance lease (see {@code lib/sessions.lua}): its
 * start moves the slot its claim took out of this instance's lease, so the session outlives the
 * instance, and its end (on any instance, by any cause) gives the slot back in the same script that
 * removes the session, so it returns exactly once however many instances race to end it.
 *
 * <p>Cost. A grant check reads the session from a copy at most {@link #STALE_MILLIS} old (one poll
 * interval), so a shopper's requests cost one round trip a second per instance rather than one per
 * request; a renewal goes to Redis only when the session would slide (once a second at most). So a
 * session ended on another instance stops admitting here within one poll interval; ended here, at
 * once. A copy is not trusted within {@link #STALE_MILLIS} of its expiry, where a renewal elsewhere
 * may have moved it. {@link #count()} always asks Redis.
 */
final class RedisSessionStore implements SessionStore {
  /** How old a copy of a session or of the generation may be: the room's poll interval. */
  static final long STALE_MILLIS = 1000;

  private static final int SWEEP_STEP = 256;
  private static final long NEVER = Long.MIN_VALUE;
  private static final int COUNTERS = 9; // lib/reply.lua's reply: what a state change returns

  private record Copy(Session session, long fetchedAt) {}

  private final LineScripts scripts;
  private final InstanceLease lease;
  private final RoomKeys keys;
  private final RedisLink link;
  private final InstantSource clock;
  private final ConcurrentHashMap<String, Copy> copies = new ConcurrentHashMap<>();
  private volatile long generation;
  private volatile long generationAt = NEVER;
  private volatile int lastCount;

  RedisSessionStore(LineScripts scripts, InstanceLease lease, InstantSource clock) {
    this.scripts = scripts;
    this.lease = lease;
    this.keys = scripts.keys();
    this.link = scripts.link();
    this.clock = clock;
  }

  @Override
  public Session start(String id, String ticket, long now, long duration, long max) {
    String time = Long.toString(now);
    String d = Long.toString(duration);
    String m = Long.toString(max);
    List<Object> r =
        lease.handOver(gen -> scripts.evalSessions(Op.SESSION_START, gen, id, ticket, time, d, m));
    scripts.track(r);
    Session s = read(r, COUNTERS, now);
    copies.put(id, new Copy(s, now));
    return s;
  }

  @Override
  public Session get(String id, long now) {
    Copy c = copies.get(id);
    if (c != null
        && now - c.fetchedAt() < STALE_MILLIS
        && now >= c.fetchedAt()
        && now + STALE_MILLIS < c.session().expiresAt()) {
      return c.session();
    }
    Session s = read(scripts.evalSessions(Op.SESSION_GET, id), 0, now);
    if (s == null) {
      copies.remove(id);
    } else {
      copies.put(id, new Copy(s, now));
    }
    return s;
  }

  @Override
  public Session byTicket(String ticket, long now) {
    return read(scripts.evalSessions(Op.SESSION_TICKET, ticket), 0, now);
  }

  @Override
  public long renew(Session s, long now, long duration) {
    long current = s.expiresAt();
    if (SessionStore.slide(current, s.maxAt(), now, duration) == current) {
      return current; // Redis holds this expiry or a later one: it would not slide either
    }
    List<Object> r =
        scripts.evalSessions(Op.SESSION_RENEW, s.id(), Long.toString(now), Long.toString(duration));
    long e = Replies.code(r);
    if (e >= 0) {
      s.observe(e);
    } else {
      copies.remove(s.id()); // ended elsewhere: the next check says so
    }
    return s.expiresAt();
  }

  @Override
  public boolean end(Session s, long now) {
    return end(s, now, "0");
  }

  @Override
  public boolean expire(Session s, long now) {
    return end(s, now, "1");
  }

  private boolean end(Session s, long now, String onlyIfExpired) {
    copies.remove(s.id()); // also when another won: a renewal elsewhere is read afresh next time
    List<Object> r =
        scripts.evalSessions(Op.SESSION_END, s.id(), Long.toString(now), onlyIfExpired);
    scripts.track(r);
    if (Replies.code(r) != 1) {
      return false;
    }
    s.markEnded();
    return true;
  }

  @Override
  public List<String> sweep(long now) {
    List<String> ended = new ArrayList<>();
    List<Object> r;
    do {
      r = scripts.evalSessions(Op.SESSION_SWEEP, Long.toString(now), Integer.toString(SWEEP_STEP));
      scripts.track(r);
      for (int i = COUNTERS; i < r.size(); i++) {
        String id = (String) r.get(i);
        ended.add(id);
        copies.remove(id);
      }
    } while (Replies.code(r) == SWEEP_STEP);
    copies.values().removeIf(c -> now - c.fetchedAt() >= STALE_MILLIS);
    return ended;
  }

  /**
   * Asks Redis when connected; while it is down the last count seen stands, as the line's counters
   * do: the count goes into every event's snapshot and {@code inFlight()}, which must not fail a
   * request the application already answered (or one a fail-open room let in).
   */
  @Override
  public int count() {
    if (link.connected()) {
      try {
        lastCount = (int) (long) link.call(c -> c.zcard(keys.sessions()[keys.all().length + 2]));
      } catch (LineUnavailableException e) {
        // the last count seen stands in
      }
    }
    return lastCount;
  }

  @Override
  public long generation() {
    long now = clock.millis();
    long at = generationAt;
    if (at == NEVER || now - at >= STALE_MILLIS || now < at) {
      String g = link.call(c -> c.hget(keys.all()[0], "sgen"));
      seenGeneration(g == null ? 0 : Long.parseLong(g), now);
    }
    return generation;
  }

  @Override
  public long newGeneration(long now, Consumer<String> ended) {
    List<Object> r = scripts.evalSessions(Op.SESSION_GENERATION, Long.toString(now));
    scripts.track(r);
    copies.clear();
    long g = Replies.code(r);
    seenGeneration(g, now);
    for (int i = COUNTERS; i < r.size(); i++) {
      ended.accept((String) r.get(i));
    }
    return g;
  }

  /**
   * The secret in Redis, set by the first instance to propose one (SETNX, then read back): every
   * instance on the room then signs its default key's grants alike.
   */
  @Override
  public byte[] sharedSecret(byte[] proposed) {
    String key = keys.signingSecret();
    if (proposed != null) {
      String mine = Base64.getEncoder().encodeToString(proposed);
      link.call(c -> c.set(key, mine, SetArgs.Builder.nx()));
    }
    String shared = link.call(c -> c.get(key));
    return shared == null ? proposed : Base64.getDecoder().decode(shared);
  }

  private synchronized void seenGeneration(long g, long at) {
    if (g >= generation) {
      generation = g;
    }
    generationAt = at;
  }

  /** The session in a reply at {@code from} (lib/sessions.lua sessionReply), or null. */
  private Session read(List<Object> r, int from, long now) {
    seenGeneration(Replies.num(r, from), now);
    if (r.size() < from + 7) {
      return null;
    }
    return new Session(
        (String) r.get(from + 1),
        (String) r.get(from + 2),
        Replies.num(r, from + 3),
        Replies.num(r, from + 4),
        Replies.num(r, from + 5),
        Replies.num(r, from + 6));
  }
}
