package dev.room.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * The measured admission rate: admissions a second, smoothed exponentially on the room's clock.
 *
 * <p>Recording is one {@link LongAdder} increment. Counts are folded into the average at most once
 * a {@value #FOLD_MILLIS} ms, when the rate is read: the admissions since the last fold over the
 * time since it, weighted by {@code 1 - exp(-dt/τ)}. The meter reports nothing until it has watched
 * admissions for {@value #WARM_UP_MILLIS} ms, and stops while admission is held, so a pause neither
 * drags the average down nor counts toward it; it resumes from the average it had. Between folds a
 * read is two volatile reads: status polls, which read it, never contend on a lock.
 */
public final class AdmissionMeter {
  static final long FOLD_MILLIS = 1000;
  static final long WARM_UP_MILLIS = 5000;
  static final long WARM_UP_ADMISSIONS = 3;

  private final double tauMillis;
  private final LongAdder pending = new LongAdder();
  private boolean running;
  private long lastFold;
  private long watched;
  private long seen;
  private double perMilli = Double.NaN;
  private volatile double reported = Double.NaN;
  private volatile long nextFoldAt = Long.MAX_VALUE;

  public AdmissionMeter(double tauMillis) {
    this.tauMillis = tauMillis;
  }

  /** Counts one admission. */
  public void record() {
    pending.increment();
  }

  /** Starts (or resumes) watching; admissions recorded while stopped are dropped. */
  public synchronized void start(long now) {
    if (!running) {
      pending.reset();
      running = true;
      lastFold = now;
      nextFoldAt = now;
    }
  }

  /** Stops watching: admission is held, so the time until {@link #start} does not count. */
  public synchronized void stop(long now) {
    if (running) {
      fold(now, 0);
      running = false;
      nextFoldAt = Long.MAX_VALUE;
      reported = Double.NaN;
    }
  }

  /**
   * Admissions a second, smoothed; {@link Double#NaN} while unknown (not watched long enough,
   * stopped, or nobody admitted).
   */
  public double perSecond(long now) {
    if (now < nextFoldAt) {
      return reported;
    }
    return refresh(now);
  }

  private synchronized double refresh(long now) {
    if (!running) {
      return Double.NaN;
    }
    fold(now, FOLD_MILLIS);
    boolean known = watched >= WARM_UP_MILLIS && seen >= WARM_UP_ADMISSIONS && perMilli > 0;
    reported = known ? perMilli * 1000 : Double.NaN;
    nextFoldAt = lastFold + FOLD_MILLIS;
    return reported;
  }

  private void fold(long now, long minGap) {
    long dt = now - lastFold;
    if (dt <= 0 || dt < minGap) {
      return;
    }
    long n = pending.sumThenReset();
    seen += n;
    double instant = (double) n / dt;
    if (Double.isNaN(perMilli)) {
      perMilli = instant;
    } else {
      perMilli += (1 - Math.exp(-dt / tauMillis)) * (instant - perMilli);
    }
    watched += dt;
    lastFold = now;
  }
}
