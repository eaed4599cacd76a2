package dev.room;

import dev.room.engine.LocalHealthWindow;
import dev.room.spi.HealthWindow;
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
 * creep up with the load it is meant to limit.
 *
 * <p>The window is a {@link HealthWindow} and the decision's state (baseline, runs of troubled and
 * healthy windows) is saved in it after every decision, so the same rule runs on this room's own
 * window ({@link LocalHealthWindow}, fed sample by sample) and on a window a fleet shares ({@link
 * FleetCapacity}): whichever instance's sample closes the shared window decides, from everyone's
 * samples and the state the previous decision saved. Decisions are serialised on this object's
 * monitor; a window closes at most once a {@value #WINDOW_MILLIS} ms, so two never overlap.
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

  /** When a window closes. */
  static final HealthWindow.Rule RULE =
      new HealthWindow.Rule(WINDOW_MILLIS, MIN_SAMPLES, MAX_WINDOW_MILLIS, KEPT);

  private final int min;
  private final int max;
  private final LocalHealthWindow window = new LocalHealthWindow();

  AdaptiveCapacity(int min, int max) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException(
          "adaptive capacity needs 1 <= min <= max, was min " + min + ", max " + max);
    }
    this.min = min;
    this.max = max;
  }

  @Override
  public int onSample(long now, long latencyMillis, boolean failed, int inFlight, int capacity) {
    HealthWindow.Closed w = window.add(latencyMillis, failed, inFlight, now, RULE);
    return w == null ? clamp(capacity) : decide(w, now, capacity, window);
  }

  /**
   * Closes the books on window {@code w}, closed at {@code now}: the capacity its median latency
   * and error rate call for, from the state the previous decision saved in {@code store}, where
   * this one's state is saved in turn.
   */
  synchronized int decide(HealthWindow.Closed w, long now, int capacity, HealthWindow store) {
    State s = State.parse(w.state());
    int c = judge(s, w, now, clamp(w.capacity() >= 1 ? w.capacity() : capacity));
    store.save(s.toString());
    return c;
  }

  private int judge(State s, HealthWindow.Closed w, long now, int c) {
    long[] kept = w.latencies().length == 0 ? new long[] {0} : w.latencies().clone();
    Arrays.sort(kept);
    double median = Math.max(1, kept[kept.length / 2]);
    int samples = Math.max(1, w.count());
    double errorRate = (double) w.errors() / samples;
    boolean busy = w.peakInFlight() >= BUSY * c;

    if (Double.isNaN(s.baseline) || median <= s.baseline) {
      s.rebase(median, now, c);
    } else if (median <= HEALTHY_LATENCY * s.baseline) {
      s.baselineAt = now;
    } else if (now - s.baselineAt >= STALE_BASELINE_MILLIS && c <= s.baselineCapacity) {
      s.rebase(median, now, c);
    }

    if (errorRate >= SERIOUS_ERRORS) {
      s.troubled = 0;
      s.healthy = 0;
      return clamp((int) (c * SERIOUS_CUT));
    }
    if (errorRate >= TROUBLE_ERRORS || median > TROUBLE_LATENCY * s.baseline) {
      s.healthy = 0;
      if (++s.troubled < TROUBLED_WINDOWS) {
        return c;
      }
      s.troubled = 0;
      return clamp((int) (c * CUT));
    }
    s.troubled = 0;
    if (errorRate < HEALTHY_ERRORS && median <= HEALTHY_LATENCY * s.baseline && busy) {
      if (++s.healthy < HEALTHY_WINDOWS) {
        return c;
      }
      s.healthy = 0;
      return clamp(c + Math.max(1, (int) Math.round(c * GROWTH)));
    }
    s.healthy = 0;
    return c;
  }

  int clamp(int c) {
    return Math.max(min, Math.min(max, c));
  }

  @Override
  public String toString() {
    return "CapacityController.adaptive(" + min + ", " + max + ")";
  }

  /**
   * What one decision leaves the next: the baseline (NaN until the first window), when it was last
   * confirmed and at what capacity, and the runs of troubled and healthy windows. Saved as five
   * words; anything unreadable starts afresh.
   */
  static final class State {
    double baseline = Double.NaN;
    long baselineAt;
    int baselineCapacity;
    int troubled;
    int healthy;

    static State parse(String saved) {
      State s = new State();
      if (saved == null) {
        return s;
      }
      String[] w = saved.split(" ");
      if (w.length != 5) {
        return s;
      }
      try {
        s.baseline = Double.parseDouble(w[0]);
        s.baselineAt = Long.parseLong(w[1]);
        s.baselineCapacity = Integer.parseInt(w[2]);
        s.troubled = Integer.parseInt(w[3]);
        s.healthy = Integer.parseInt(w[4]);
      } catch (NumberFormatException e) {
        return new State();
      }
      return s;
    }

    void rebase(double median, long now, int c) {
      baseline = median;
      baselineAt = now;
      baselineCapacity = c;
    }

    @Override
    public String toString() {
      return baseline + " " + baselineAt + " " + baselineCapacity + " " + troubled + " " + healthy;
    }
  }
}
