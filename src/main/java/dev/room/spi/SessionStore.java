package dev.room.spi;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The state of a room's admission sessions: each holds one slot of the line from its start until it
 * ends, and the store is the revocation list every grant check consults.
 *
 * <p>A session ends exactly once, and the call that ends it gives its slot back to the line in the
 * same atomic step: when leave, revoke, completion, the operator, a new sale generation and expiry
 * race, on one instance or on several, one caller wins ({@link #end} or {@link #expire} returns
 * true for it alone) and the slot returns once. The room fires the events and keeps the policy
 * (durations, the grant's signature); the store keeps the sessions, the sale generation and the
 * slots they hold.
 *
 * <p>A session's expiry slides on activity in steps of at least {@link #SLIDE_STEP_MILLIS}, never
 * past its absolute limit and never back; a session whose time is up is not renewed. Times are
 * epoch milliseconds from the room's clock.
 *
 * <p>A shared store (one per Redis room) may answer {@link #get} from a copy up to one poll
 * interval old, so a session ended elsewhere stops admitting here within that interval; a session
 * ended through this store stops at once.
 */
public interface SessionStore {
  /** The least a session slides by (the unit of a cookie's Max-Age). */
  long SLIDE_STEP_MILLIS = 1000;

  /**
   * Starts a session on the slot the caller holds (from then on the session holds it), in the
   * current sale generation; it lasts {@code duration} from {@code now}, sliding, and at most
   * {@code max}.
   */
  Session start(String id, String ticket, long now, long duration, long max);

  /** The session with this id, or null when it ended. Its time may be up: see {@link #expire}. */
  Session get(String id, long now);

  /** The session {@code ticket} started (a repeated claim), or null. Its time may be up. */
  Session byTicket(String ticket, long now);

  /**
   * Slides {@code s} on activity at {@code now} ({@link #slide}); returns its expiry afterwards, as
   * {@code s.expiresAt()} then reads too.
   */
  long renew(Session s, long now, long duration);

  /** Ends {@code s} and gives its slot back; true for exactly one caller. */
  boolean end(Session s, long now);

  /** Ends {@code s} if its time is up at {@code now} (as the store sees it); true if this did. */
  boolean expire(Session s, long now);

  /** Ends every session whose time is up at {@code now}; returns their ids. */
  List<String> sweep(long now);

  /** Sessions holding a slot now. */
  int count();

  /**
   * The current sale generation (0 at first); on a shared store, as seen at most one poll interval
   * ago (a new generation started here is seen at once).
   */
  long generation();

  /**
   * Starts a new sale generation: ends every session (giving their slots back) and returns the new
   * generation; {@code ended} receives each ended session's id.
   */
  long newGeneration(long now, Consumer<String> ended);

  /**
   * The secret the room's default signing key uses: {@code proposed} for a store of one instance; a
   * shared store returns the one every instance on it uses (the first proposed), so a grant signed
   * by one instance verifies on every other without configuration.
   */
  default byte[] sharedSecret(byte[] proposed) {
    return proposed;
  }

  /**
   * The slide rule, written once for Java (the Redis script {@code session_renew.lua} mirrors it):
   * the expiry {@code current} becomes at {@code now}.
   */
  static long slide(long current, long maxAt, long now, long duration) {
    if (now >= current) {
      return current; // its time is up: only an ending follows
    }
    long target = Math.min(now + duration, maxAt);
    boolean step = target - current >= SLIDE_STEP_MILLIS || (target == maxAt && target > current);
    return step ? target : current;
  }

  /** One session as the store saw it; its expiry follows the renewals made through it. */
  final class Session {
    private final String id;
    private final String ticket;
    private final long claimedAt;
    private final long maxAt;
    private final long generation;
    private final AtomicLong expiresAt;
    private final AtomicBoolean ended = new AtomicBoolean();

    public Session(
        String id, String ticket, long claimedAt, long expiresAt, long maxAt, long generation) {
      this.id = id;
      this.ticket = ticket;
      this.claimedAt = claimedAt;
      this.expiresAt = new AtomicLong(expiresAt);
      this.maxAt = maxAt;
      this.generation = generation;
    }

    public String id() {
      return id;
    }

    /** The ticket whose claim started it ("" for a newcomer let straight in). */
    public String ticket() {
      return ticket;
    }

    public long claimedAt() {
      return claimedAt;
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

    /**
     * Whether it ended through this object (a shared store's copy does not learn of an ending
     * elsewhere; ask the store).
     */
    public boolean ended() {
      return ended.get();
    }

    /** For stores: marks it ended; true for the first call. */
    public boolean markEnded() {
      return ended.compareAndSet(false, true);
    }

    /**
     * For stores: moves the expiry from {@code from} to {@code to}; false if it was not {@code
     * from}.
     */
    public boolean moveExpiry(long from, long to) {
      return expiresAt.compareAndSet(from, to);
    }

    /**
     * For stores: the expiry is at least {@code seen} (a renewal elsewhere); never moves it back.
     */
    public void observe(long seen) {
      long e;
      while ((e = expiresAt.get()) < seen && !expiresAt.compareAndSet(e, seen)) {
        // another renewal raced; read again
      }
    }
  }
}
