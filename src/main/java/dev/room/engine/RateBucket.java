package dev.room.engine;

import dev.room.spi.Line;

/**
 * The admission-rate bucket of the in-memory line ({@link Line#meter}, {@link Line#refill}): its
 * rate, burst, carried fraction and last refill. The whole admissions it holds are the window's
 * allowance, or set aside here while the line is held.
 *
 * <p>The rule is written twice: {@code redis/lib/bucket.lua} is the same arithmetic on the room's
 * meta hash, and {@code LineContractTest} runs it on both lines. A refill adds what accrued since
 * the last refill by anyone, on the caller's {@code now}, and never moves the last refill back, so
 * refills by any number of rooms add {@code r·t} in all over t; the fraction left carries over,
 * except that a full bucket carries none (what would overflow it is lost, as in any token bucket).
 * Guarded by the owning line's lock.
 */
final class RateBucket {
  private double perMilli; // 0: the line is not metered
  private long burst;
  private long last;
  private double carry;
  private long banked; // the whole admissions the bucket holds while the line is held

  boolean metered() {
    return perMilli > 0;
  }

  long burst() {
    return burst;
  }

  /** A new bucket from {@code now}; its content is the caller's (the burst, or 0 after a loss). */
  void start(double perSecond, long burst, long now) {
    perMilli = perSecond / 1000;
    this.burst = burst;
    last = now;
    carry = 0;
  }

  /** Changes the rate and burst of a bucket already refilled to now; returns content capped. */
  long change(double perSecond, long burst, long content) {
    perMilli = perSecond / 1000;
    this.burst = burst;
    if (content >= burst) {
      carry = 0;
      return burst;
    }
    return content;
  }

  void stop() {
    perMilli = 0;
    burst = 0;
    carry = 0;
    banked = 0;
  }

  /** {@code content} plus the whole admissions accrued since the last refill, at most the burst. */
  long accrue(long content, long now) {
    double tokens = carry + Math.max(0, now - last) * perMilli;
    long whole = (long) Math.floor(tokens);
    last = Math.max(last, now);
    long level = content >= burst ? content : Math.min(burst, content + whole);
    carry = level >= burst ? 0 : tokens - whole;
    return level;
  }

  /** When the next whole admission accrues: a refill before it adds nothing. */
  long nextAt() {
    return last + Math.max(1, (long) Math.ceil((1 - carry) / perMilli));
  }

  long banked() {
    return banked;
  }

  void bank(long content) {
    banked = content;
  }

  void checkInvariants(long allowance, boolean held) {
    if (!metered()) {
      return;
    }
    require(carry >= 0 && carry < 1, "carried fraction " + carry);
    require(banked >= 0 && banked <= burst, "banked " + banked + " of a burst of " + burst);
    require(!held || allowance == 0, "allowance " + allowance + " while held");
    require(held || banked == 0, "admissions banked while not held");
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("rate bucket invariant broken: " + what);
    }
  }
}
