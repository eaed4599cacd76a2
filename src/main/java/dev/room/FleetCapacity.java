package dev.room;

import dev.room.spi.HealthWindow;
import dev.room.spi.LineUnavailableException;

/**
 * {@link CapacityController#adaptive} for a fleet: this instance's samples go to the window every
 * instance on the line feeds ({@link HealthWindow}), at most once every {@value #FLUSH_MILLIS} ms
 * (one round trip, not one per request), and the instance whose add closes the shared window takes
 * the fleet's decision with the same rule, from everyone's samples and the state the last decision
 * saved; the room then sets it as the line's capacity, which is the fleet's. So n instances take
 * one decision a window, not n, and a trouble only some instances see is weighed against all
 * traffic.
 *
 * <p>Implementation notes. Samples gather under this object's monitor (no allocation); the batch is
 * taken out under it and sent outside it. While the line is unreachable a batch is dropped: the
 * window then judges the samples that did arrive.
 */
final class FleetCapacity {
  static final long FLUSH_MILLIS = 250;

  private final AdaptiveCapacity adaptive;
  private final HealthWindow window;
  private final long[] latencies = new long[AdaptiveCapacity.KEPT];
  private int count;
  private int errors;
  private int peak;
  private long lastFlush = Long.MIN_VALUE / 2;

  FleetCapacity(AdaptiveCapacity adaptive, HealthWindow window) {
    this.adaptive = adaptive;
    this.window = window;
  }

  /** The controller this decides for. */
  CapacityController controller() {
    return adaptive;
  }

  /** As {@link CapacityController#onSample}, for the fleet. */
  int onSample(long now, long latencyMillis, boolean failed, int inFlight, int capacity) {
    HealthWindow.Samples batch;
    synchronized (this) {
      latencies[count % latencies.length] = Math.max(0, latencyMillis);
      count++;
      if (failed) {
        errors++;
      }
      peak = Math.max(peak, inFlight);
      if (now - lastFlush < FLUSH_MILLIS) {
        return adaptive.clamp(capacity);
      }
      lastFlush = now;
      batch = take();
    }
    HealthWindow.Closed w;
    try {
      w = window.add(batch, now, AdaptiveCapacity.RULE);
      return w == null ? adaptive.clamp(capacity) : adaptive.decide(w, now, capacity, window);
    } catch (LineUnavailableException e) {
      return adaptive.clamp(capacity);
    }
  }

  private HealthWindow.Samples take() {
    int n = Math.min(count, latencies.length);
    long[] kept = new long[n];
    int from = count > latencies.length ? count % latencies.length : 0;
    for (int i = 0; i < n; i++) {
      kept[i] = latencies[(from + i) % latencies.length];
    }
    HealthWindow.Samples s = new HealthWindow.Samples(count, errors, peak, kept);
    count = 0;
    errors = 0;
    peak = 0;
    return s;
  }
}
