package dev.room;

import dev.room.engine.Challenges;
import dev.room.engine.JoinLimiter;
import dev.room.engine.LocalJoinLedger;
import dev.room.spi.JoinLedger;
import dev.room.spi.Line;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a newcomer must show before a ticket is issued: a solved proof-of-work challenge, when the
 * room asks for one, and a client key that has not taken its minute's share of tickets. Both are
 * off by default; the fast path (a free slot, nobody waiting) issues no ticket and is never asked.
 * Knows nothing of servlets: the gatekeeper hands it the solution and the key.
 *
 * <p>The challenge is checked first, so a visitor still solving is not counted against its key; a
 * solution is spent even when the limit then refuses the ticket.
 */
final class JoinGuard {
  /** The cookie the waiting page sends a solution in: base64 JSON, ALTCHA's payload. */
  static final String COOKIE = "room_altcha";

  /** The most tickets a key may be allowed per minute; beyond it the limit means nothing. */
  static final int MAX_JOIN_LIMIT = 1_000_000;

  /** A newcomer refused a ticket: it must solve a challenge, or come back after a while. */
  record Refused(boolean challenge, Challenges.Verdict verdict, long retryAfterSeconds)
      implements Admission {}

  private static final Refused CHALLENGE = new Refused(true, Challenges.Verdict.MISSING, 0);

  private final JoinLimiter limiter;
  private final Challenges challenges;
  private final LongAdder joinsRefused = new LongAdder();
  private final LongAdder challengesRefused = new LongAdder();
  private volatile int joinLimit;
  private volatile int challengeBits;

  JoinGuard(Line line) {
    JoinLedger shared = line.joinLedger();
    JoinLedger ledger = shared != null ? shared : new LocalJoinLedger();
    this.limiter = new JoinLimiter(ledger);
    this.challenges = new Challenges(ledger);
  }

  static int joinLimit(int perMinute) {
    if (perMinute < 0 || perMinute > MAX_JOIN_LIMIT) {
      throw Checks.invalid(
          "joinLimit", "must be 0 (off) to " + MAX_JOIN_LIMIT + ", was " + perMinute);
    }
    return perMinute;
  }

  static int joinChallenge(int bits) {
    if (bits < 0 || bits > Challenges.MAX_BITS) {
      throw Checks.invalid(
          "joinChallenge", "must be 0 (off) to " + Challenges.MAX_BITS + " bits, was " + bits);
    }
    return bits;
  }

  void setJoinLimit(int perMinute) {
    joinLimit = joinLimit(perMinute);
  }

  int joinLimit() {
    return joinLimit;
  }

  void setJoinChallenge(int bits) {
    challengeBits = joinChallenge(bits);
  }

  int joinChallenge() {
    return challengeBits;
  }

  boolean enabled() {
    return joinLimit != 0 || challengeBits != 0;
  }

  long joinsRefused() {
    return joinsRefused.sum();
  }

  long challengesRefused() {
    return challengesRefused.sum();
  }

  Challenges challenges() {
    return challenges;
  }

  /**
   * Judges a newcomer about to take a ticket: null when it may, else why not. {@code key} is what
   * the limit counts by; {@code solution} the payload it sent, or null.
   */
  Refused check(String room, String key, String solution, long now) {
    if (challengeBits != 0) {
      Challenges.Verdict v = challenges.verify(solution, room, now);
      if (v != Challenges.Verdict.SOLVED) {
        if (v != Challenges.Verdict.MISSING) {
          challengesRefused.increment();
          return new Refused(true, v, 0);
        }
        return CHALLENGE;
      }
    }
    int limit = joinLimit;
    if (limit != 0) {
      long wait = limiter.tryJoin(key, limit, now);
      if (wait != 0) {
        joinsRefused.increment();
        return new Refused(false, null, (wait + 999) / 1000);
      }
    }
    return null;
  }
}
