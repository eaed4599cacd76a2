package dev.room.engine;

import dev.room.spi.HealthWindow;

/**
 * The window of a line only one room uses: held in this process, fed one sample at a time without
 * allocating (a window allocates when it closes, once a second at most). Guarded by this object's
 * monitor.
 */
public final class LocalHealthWindow implements HealthWindow {
  private long[] latencies = new long[0];
  private boolean open;
  private long start;
  private int written; // latencies written into the ring this window
  private int count;
  private int errors;
  private int peak;
  private String state;

  @Override
  public synchronized Closed add(Samples s, long now, Rule rule) {
    if (s.count() <= 0) {
      return null;
    }
    ring(rule);
    open(now);
    for (long l : s.latencies()) {
      latencies[written++ % latencies.length] = Math.max(0, l);
    }
    // A batch may carry fewer latencies than requests (the rule keeps only the most recent).
    count += s.count();
    errors += s.errors();
    peak = Math.max(peak, s.peakInFlight());
    return closeIfDue(now, rule);
  }

  /** One sample: {@link #add} for a batch of one, without allocating unless the window closes. */
  public synchronized Closed add(
      long latencyMillis, boolean failed, int inFlight, long now, Rule rule) {
    ring(rule);
    open(now);
    latencies[written++ % latencies.length] = Math.max(0, latencyMillis);
    count++;
    if (failed) {
      errors++;
    }
    peak = Math.max(peak, inFlight);
    return closeIfDue(now, rule);
  }

  @Override
  public synchronized void save(String state) {
    this.state = state;
  }

  private void ring(Rule rule) {
    if (latencies.length != rule.kept()) {
      latencies = new long[Math.max(1, rule.kept())];
    }
  }

  private void open(long now) {
    if (!open) {
      open = true;
      start = now;
    }
  }

  private Closed closeIfDue(long now, Rule rule) {
    long age = now - start;
    if (age < rule.maxWindowMillis() && (age < rule.windowMillis() || count < rule.minSamples())) {
      return null;
    }
    int n = Math.min(written, latencies.length);
    long[] kept = new long[n];
    // The ring's oldest first: it starts at the slot the next sample would take.
    int from = written > latencies.length ? written % latencies.length : 0;
    for (int i = 0; i < n; i++) {
      kept[i] = latencies[(from + i) % latencies.length];
    }
    Closed c = new Closed(start, count, errors, peak, kept, state, -1);
    open = false;
    written = 0;
    count = 0;
    errors = 0;
    peak = 0;
    return c;
  }
}
