package dev.room;

import java.util.Arrays;

/**
 * The health-driven {@link CapacityController}: {@link CapacityController#adaptive(int, int)}.
 *
 * <p>Implementation notes. Samples accumulate in a window (its latencies in a ring of {@value
 * #KEPT}, the most recent kept) until it is at least {@value #WINDOW_MILLIS} ms old and holds
 * {@value #MIN_SAMPLES} samples (or is {@value #MAX_WINDOW_MILLIS} ms old); the sample that closes
 * it has the window judged. The baseline is the lowest window median seen; it is refreshed by
 * windows close to it, and replaced by a higher one only when it has gone unconfirmed for {@value
 * #STALE_BASELINE_MILLIS} ms and the window ran at no more capacity than the baseline's: the
 * application itself got slower, not busier. Raising it on a busier window would let the baseline
 * creep up with the load it is meant to limit. All state is guarded by this object's monitor.
 */
final class AdaptiveCapacity implements CapacityController {
  static final long WINDOW_MILLIS = 1000;
  static final long MAX_WINDOW_MILLIS = 10_000;
  static final int MIN_SAMPLES = 5;
  static final int KEPT = 255;
  static final double TROUBLE_LATENCY = 2.0;
  static final double HEALTHY_LATENCY = 1.25;
  static final double TROUBLE_ERRORS = 0.05;
  static final double SERIOUS_ERRORS = 0.25;
  static final double HEALTHY_ERRORS = 0.01;
  static final int TROUBLED_WINDOWS = 2;
  static final int HEALTHY_WINDOWS = 3;
  static final double CUT = 0.75;
  static final double SERIOUS_CUT = 0.5;
  static final double GROWTH = 0.1;
  static final double BUSY = 0.8;
  static final long STALE_BASELINE_MILLIS = 60_000;

  private final int min;
  private final int max;
  private final long[] latencies = new long[KEPT];
  private long windowStart;
  private boolean windowOpen;
  private int samples;
  private int errors;
  private int peakInFlight;
  private double baseline = Double.NaN;
  private long baselineAt;
  private int baselineCapacity;
  private int troubled;
  private int healthy;

  AdaptiveCapacity(int min, int max) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException(
          "adaptive capacity needs 1 <= min <= max, was min " + min + ", max " + max);
    }
    this.min = min;
    this.max = max;
  }

  @Override
  public synchronized int onSample(
      long now, long latencyMillis, boolean failed, int inFlight, int capacity) {
    int c = clamp(capacity);
    if (!windowOpen) {
      windowOpen = true;
      windowStart = now;
    }
    latencies[samples % KEPT] = Math.max(0, latencyMillis);
    samples++;
    if (failed) {
      errors++;
    }
    peakInFlight = Math.max(peakInFlight, inFlight);
    long age = now - windowStart;
    if (age < MAX_WINDOW_MILLIS && (age < WINDOW_MILLIS || samples < MIN_SAMPLES)) {
      return c;
    }
    return judge(now, c);
  }

  /** Closes the window: the capacity its median latency and error rate call for. */
  private int judge(long now, int c) {
    long[] kept = Arrays.copyOf(latencies, Math.min(samples, KEPT));
    Arrays.sort(kept);
    double median = Math.max(1, kept[kept.length / 2]);
    double errorRate = (double) errors / samples;
    boolean busy = peakInFlight >= BUSY * c;
    windowOpen = false;
    samples = 0;
    errors = 0;
    peakInFlight = 0;

    if (Double.isNaN(baseline) || median <= baseline) {
      rebase(median, now, c);
    } else if (median <= HEALTHY_LATENCY * baseline) {
      baselineAt = now;
    } else if (now - baselineAt >= STALE_BASELINE_MILLIS && c <= baselineCapacity) {
      rebase(median, now, c);
    }

    if (errorRate >= SERIOUS_ERRORS) {
      troubled = 0;
      healthy = 0;
      return clamp((int) (c * SERIOUS_CUT));
    }
    if (errorRate >= TROUBLE_ERRORS || median > TROUBLE_LATENCY * baseline) {
      healthy = 0;
      if (++troubled < TROUBLED_WINDOWS) {
        return c;
      }
      troubled = 0;
      return clamp((int) (c * CUT));
    }
    troubled = 0;
    if (errorRate < HEALTHY_ERRORS && median <= HEALTHY_LATENCY * baseline && busy) {
      if (++healthy < HEALTHY_WINDOWS) {
        return c;
      }
      healthy = 0;
      return clamp(c + Math.max(1, (int) Math.round(c * GROWTH)));
    }
    healthy = 0;
    return c;
  }

  private void rebase(double median, long now, int c) {
    baseline = median;
    baselineAt = now;
    baselineCapacity = c;
  }

  private int clamp(int c) {
    return Math.max(min, Math.min(max, c));
  }

  @Override
  public String toString() {
    return "CapacityController.adaptive(" + min + ", " + max + ")";
  }
}
