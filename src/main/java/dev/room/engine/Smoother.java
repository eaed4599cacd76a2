package dev.room.engine;

/**
 * An exponentially weighted moving average of a sampled value with a time constant.
 *
 * <p>Samples closer together than {@link #MIN_GAP_MILLIS} are skipped so the request path pays one
 * volatile read in the common case.
 */
public final class Smoother {
  static final long MIN_GAP_MILLIS = 100;

  private final double tauMillis;
  private volatile long last = Long.MIN_VALUE;
  private double value;

  public Smoother(double tauMillis) {
    this.tauMillis = tauMillis;
  }

  public void sample(double x, long now) {
    long l = last;
    if (l != Long.MIN_VALUE && now - l < MIN_GAP_MILLIS) {
      return;
    }
    update(x, now);
  }

  public synchronized double value(double current, long now) {
    update(current, now);
    return value;
  }

  private synchronized void update(double x, long now) {
    long l = last;
    if (l == Long.MIN_VALUE) {
      value = x;
    } else if (now > l) {
      double alpha = 1 - Math.exp(-(now - l) / tauMillis);
      value += alpha * (x - value);
    }
    last = now;
  }
}
