package dev.room.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Active shopping sessions: each holds one slot of the line from its claim until it ends.
 *
 * <p>A session ends exactly once: {@link #end} is a compare-and-set, so when leave, revoke,
 * completion and expiry race, one caller wins and returns the slot. The registry is the revocation
 * list that grant checks consult: a grant whose session is not here no longer admits. A session
 * slides in steps of at least {@link #SLIDE_STEP_MILLIS} (the unit of a cookie's Max-Age), so the
 * grant that must follow each slide is re-sent at most about once a second.
 */
public final class SessionRegistry {
  /** One shopping session. */
  public static final class Session {
    final String id;
    final String ticket;
    final long claimedAt;
    final long maxAt;
    final long generation;
    private final AtomicLong expiresAt;
    private final AtomicBoolean ended = new AtomicBoolean();

    Session(String id, String ticket, long claimedAt, long expiresAt, long maxAt, long gen) {
      this.id = id;
      this.ticket = ticket;
      this.claimedAt = claimedAt;
      this.expiresAt = new AtomicLong(expiresAt);
      this.maxAt = maxAt;
      this.generation = gen;
    }

    public String id() {
      return id;
    }

    public long expiresAt() {
      return expiresAt.get();
    }

    public long maxAt() {
      return maxAt;
    }

    public long generation() {
      return generation;
    }

    public boolean ended() {
      return ended.get();
    }
  }

  /** The least a session slides by. */
  public static final long SLIDE_STEP_MILLIS = 1000;

  private final ConcurrentHashMap<String, Session> byId = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Session> byTicket = new ConcurrentHashMap<>();

  /** Starts a session for the ticket that claimed a slot. */
  public Session start(String id, String ticket, long now, long duration, long max, long gen) {
    long maxAt = now + max;
    Session s = new Session(id, ticket, now, Math.min(now + duration, maxAt), maxAt, gen);
    byId.put(id, s);
    if (!ticket.isEmpty()) {
      byTicket.put(ticket, s);
    }
    return s;
  }

  /** The live session with this id, or null. */
  public Session get(String id) {
    Session s = byId.get(id);
    return s == null || s.ended() ? null : s;
  }

  /** The live session a ticket already claimed (a repeated claim), or null. */
  public Session byTicket(String ticket) {
    Session s = byTicket.get(ticket);
    return s == null || s.ended() ? null : s;
  }

  /**
   * Slides the session's expiry forward on activity, by a step or to its absolute limit, never back
   * (concurrent requests of one session race here).
   */
  public void renew(Session s, long now, long duration) {
    long target = Math.min(now + duration, s.maxAt);
    while (true) {
      long current = s.expiresAt.get();
      boolean slide =
          target - current >= SLIDE_STEP_MILLIS || (target == s.maxAt && target > current);
      if (!slide || s.expiresAt.compareAndSet(current, target)) {
        return;
      }
    }
  }

  /** Ends the session; true for exactly one caller. */
  public boolean end(Session s) {
    if (!s.ended.compareAndSet(false, true)) {
      return false;
    }
    byId.remove(s.id, s);
    if (!s.ticket.isEmpty()) {
      byTicket.remove(s.ticket, s);
    }
    return true;
  }

  /** Sessions whose time is up at {@code now}. */
  public List<Session> expired(long now) {
    List<Session> out = new ArrayList<>();
    for (Session s : byId.values()) {
      if (now >= s.expiresAt()) {
        out.add(s);
      }
    }
    return out;
  }

  public List<Session> all() {
    return new ArrayList<>(byId.values());
  }

  public int size() {
    return byId.size();
  }
}
