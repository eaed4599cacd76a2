package dev.room.engine;

import dev.room.spi.Line;

/**
 * The admission rate: a room's settings applied to the line's own token bucket ({@link
 * Line#meter}), and the room's share of refilling it.
 *
 * <p>Open without a rate, the allowance is {@link Line#UNLIMITED}: capacity alone decides. Open at
 * r admissions a second, the bucket holds at most {@link #burst(double) max(1, ⌈r⌉)} admissions and
 * gains r a second, held or not, so over any span of t seconds at most {@code burst + r·t} clients
 * are admitted (slots handed to waiters and fast-path entries alike), on top of the capacity limit.
 * Held (a pause, queue-all, a closed sale, a pre-sale not yet drawn) the allowance is 0.
 *
 * <p>Implementation notes. The bucket is the line's, rate, content, carried fraction and last
 * refill alike, so on a line shared by several rooms (app instances) there is one bucket for all of
 * them: each room refills it as it passes by (polls, arrivals, exits, reaper passes), and a refill
 * adds what accrued since the last one by anyone, so n rooms rated r admit r a second between them,
 * not n·r. Before {@code nextTokenAt} (when the line says its next whole admission accrues) a
 * refill would add nothing, so the request path pays two volatile reads. A hold is the line's too
 * ({@link Line#hold}): it sets the bucket's content aside in the same atomic step, the bucket goes
 * on filling meanwhile, and no room's refill lifts it. {@link #configure} and refills are
 * serialised on this object's monitor. Lock order: this object's monitor, then the line's lock.
 */
public final class AdmissionPacer {
  private final Line line;
  private volatile boolean metered; // open at a rate: refills are this room's to make
  private volatile long nextTokenAt;

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
    metered = false;
    if (!(perSecond > 0)) {
      line.meter(0, 0, now); // a bucket of an earlier rate goes, whoever set it
      if (open) {
        line.hold(false, now); // before the allowance: a held line reads 0 whatever it holds
      }
      long target = open ? Line.UNLIMITED : 0;
      if (line.allowance() != target) {
        line.setAllowance(target, now);
      }
      if (!open) {
        line.hold(true, now);
      }
      return;
    }
    // Held first: the line sets the bucket's content aside in the step that holds it, and a new
    // rate then applies to the content wherever it is.
    line.hold(!open, now);
    nextTokenAt = line.meter(perSecond, burst(perSecond), now);
    metered = open;
  }

  /** Adds what has accrued since the last refill by any room; cheap when nothing has. */
  public void tick(long now) {
    if (metered && now >= nextTokenAt) {
      refill(now);
    }
  }

  private synchronized void refill(long now) {
    if (metered && now >= nextTokenAt) {
      nextTokenAt = line.refill(now);
    }
  }
}
