package dev.room.engine;

import dev.room.spi.Line;

/**
 * The admission rate: a token bucket on the room's clock whose content is the line's allowance, and
 * the one writer of that allowance.
 *
 * <p>Open without a rate, the allowance is {@link Line#UNLIMITED}: capacity alone decides. Open at
 * r admissions a second, the bucket holds at most {@link #burst(double) max(1, ⌈r⌉)} admissions and
 * gains r a second, so over any span of t seconds at most {@code burst + r·t} clients are admitted
 * (slots handed to waiters and fast-path entries alike), on top of the capacity limit. Held (a
 * pause, queue-all, a closed sale, a pre-sale not yet drawn) the allowance is 0.
 *
 * <p>Implementation notes. The bucket lives in the line, so using it and handing a slot over are
 * one atomic step there; this class only adds to it. Refills happen as the room passes by (polls,
 * arrivals, exits, reaper passes): each adds the whole admissions accrued since the last, and the
 * fraction left carries over. Before {@code nextTokenAt} nothing can have accrued, so the request
 * path pays two volatile reads. {@link #configure} and refills are serialised on this object's
 * monitor and a refill checks it is still metered under it, so a refill never lands after a hold.
 * Lock order: this object's monitor, then the line's lock.
 */
public final class AdmissionPacer {
  private final Line line;
  private volatile boolean metered;
  private volatile long nextTokenAt;
  private double perMilli;
  private long burst;
  private long lastRefill;
  private double carry;

  public AdmissionPacer(Line line) {
    this.line = line;
  }

  /** The most admissions a bucket filling at {@code perSecond} lets through at once. */
  public static long burst(double perSecond) {
    return Math.max(1, (long) Math.ceil(perSecond));
  }

  /**
   * Sets the line's allowance for a room that is {@code open} (or held) at {@code perSecond}
   * admissions a second (0 = no rate). An open, metered bucket starts full.
   */
  public synchronized void configure(boolean open, double perSecond, long now) {
    if (!open || perSecond <= 0) {
      metered = false;
      long target = open ? Line.UNLIMITED : 0;
      if (line.allowance() != target) {
        line.setAllowance(target, now);
      }
      return;
    }
    perMilli = perSecond / 1000;
    burst = burst(perSecond);
    lastRefill = now;
    carry = 0;
    nextTokenAt = now + (long) Math.ceil(1 / perMilli);
    metered = true;
    line.setAllowance(burst, now);
  }

  /** Adds what has accrued since the last refill; cheap when nothing has. */
  public void tick(long now) {
    if (metered && now >= nextTokenAt) {
      refill(now);
    }
  }

  private synchronized void refill(long now) {
    if (!metered || now < nextTokenAt) {
      return;
    }
    double tokens = carry + (now - lastRefill) * perMilli;
    long whole = (long) tokens;
    carry = whole >= burst ? 0 : tokens - whole;
    lastRefill = now;
    nextTokenAt = now + Math.max(1, (long) Math.ceil((1 - carry) / perMilli));
    if (whole > 0) {
      line.addAllowance(Math.min(whole, burst), burst, now);
    }
  }
}
