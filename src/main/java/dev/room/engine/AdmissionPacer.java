package dev.room.engine;

import dev.room.spi.Line;

/**
 * The admission rate: a token bucket on the room's clock whose content is the line's allowance, and
 * the one writer of that allowance.
 *
 * <p>Open without a rate, the allowance is {@link Line#UNLIMITED}: capacity alone decides. Open at
 * r admissions a second, the bucket holds at most {@link #burst(double) max(1, ⌈r⌉)} admissions and
 * gains r a second, held or not, so over any span of t seconds at most {@code burst + r·t} clients
 * are admitted (slots handed to waiters and fast-path entries alike), on top of the capacity limit.
 * Held (a pause, queue-all, a closed sale, a pre-sale not yet drawn) the allowance is 0.
 *
 * <p>Implementation notes. The bucket lives in the line, so using it and handing a slot over are
 * one atomic step there; this class only adds to it. Refills happen as the room passes by (polls,
 * arrivals, exits, reaper passes): each adds the whole admissions accrued since the last, and the
 * fraction left carries over. Before {@code nextTokenAt} nothing can have accrued, so the request
 * path pays two volatile reads. {@link #configure} and refills are serialised on this object's
 * monitor and a refill checks it is still metered under it, so a refill never lands after a hold. A
 * hold takes the line's tokens back in the same atomic step that zeroes the allowance ({@link
 * Line#replaceAllowance}) and keeps them here until the hold ends, so none is lost or made up. Lock
 * order: this object's monitor, then the line's lock.
 *
 * <p>A hold is also the line's own flag ({@link Line#hold}): on a line shared by several rooms each
 * has its pacer, and a refill by a room that has not yet heard of another's pause must not undo it.
 */
public final class AdmissionPacer {
  private final Line line;
  private volatile boolean metered;
  private volatile long nextTokenAt;
  private boolean rated;
  private double perMilli;
  private long burst;
  private long lastRefill;
  private double carry;
  private double heldLevel;

  public AdmissionPacer(Line line) {
    this.line = line;
  }

  /** The most admissions a bucket filling at {@code perSecond} lets through at once. */
  public static long burst(double perSecond) {
    return Math.max(1, (long) Math.ceil(perSecond));
  }

  /**
   * Sets the line's allowance for a room that is {@code open} (or held) at {@code perSecond}
   * admissions a second (0 = no rate). A new bucket starts full. Applying the settings again, a new
   * rate, a hold and its end all keep the bucket's content (capped at the new burst), so no setter
   * refills what admissions spent; during a hold the bucket goes on filling.
   */
  public synchronized void configure(boolean open, double perSecond, long now) {
    if (open) {
      line.hold(false, now); // before the allowance: a held line reads 0 whatever it holds
    }
    if (!(perSecond > 0)) {
      rated = false;
      metered = false;
      long target = open ? Line.UNLIMITED : 0;
      if (line.allowance() != target) {
        line.setAllowance(target, now);
      }
      if (!open) {
        line.hold(true, now);
      }
      return;
    }
    double level = Double.POSITIVE_INFINITY; // a new bucket: full
    if (metered) {
      refillLocked(now); // the line holds the whole tokens; what accrued so far goes in first
    } else if (rated) {
      level = Math.min(burst, heldLevel + Math.max(0, now - lastRefill) * perMilli);
    }
    perMilli = perSecond / 1000;
    burst = burst(perSecond);
    rated = true;
    if (open) {
      if (metered) {
        if (line.allowance() > burst) {
          line.setAllowance(burst, now); // a lower rate's smaller burst
        }
      } else {
        level = Math.min(level, burst);
        long whole = (long) level;
        carry = whole >= burst ? 0 : level - whole;
        line.setAllowance(whole, now);
      }
      lastRefill = now;
      nextTokenAt = now + Math.max(1, (long) Math.ceil((1 - carry) / perMilli));
      metered = true;
    } else {
      if (metered) {
        metered = false;
        level = Math.min((double) line.replaceAllowance(0, now), burst) + carry;
      } else if (line.allowance() != 0) {
        line.setAllowance(0, now);
      }
      heldLevel = Math.min(level, burst);
      lastRefill = now;
      line.hold(true, now); // after the tokens were taken back: no other refill can add to them
    }
  }

  /** Adds what has accrued since the last refill; cheap when nothing has. */
  public void tick(long now) {
    if (metered && now >= nextTokenAt) {
      refill(now);
    }
  }

  private synchronized void refill(long now) {
    if (metered && now >= nextTokenAt) {
      refillLocked(now);
    }
  }

  private void refillLocked(long now) {
    double tokens = carry + Math.max(0, now - lastRefill) * perMilli;
    long whole = (long) tokens;
    carry = whole >= burst ? 0 : tokens - whole;
    lastRefill = Math.max(lastRefill, now);
    nextTokenAt = now + Math.max(1, (long) Math.ceil((1 - carry) / perMilli));
    if (whole > 0) {
      line.addAllowance(Math.min(whole, burst), burst, now);
    }
  }
}
