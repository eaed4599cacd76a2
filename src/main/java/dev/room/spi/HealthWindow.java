package dev.room.spi;

/**
 * The window of finished requests a health-driven capacity is decided from, fed by every instance
 * on a line, so the fleet takes one decision from everyone's samples. Each instance adds what it
 * measured since its last add; the add that finds the window due closes it and is the only one to
 * get it back (with the state the last decision saved), takes the decision and saves its state for
 * the next. Between two closes the window is one, whoever fed it.
 */
public interface HealthWindow {
  /**
   * When a window closes: at least {@code windowMillis} old and holding {@code minSamples} samples,
   * or {@code maxWindowMillis} old; it keeps the {@code kept} most recent latencies.
   */
  record Rule(long windowMillis, int minSamples, long maxWindowMillis, int kept) {}

  /**
   * Samples one instance measured since its last add.
   *
   * @param count requests finished
   * @param errors of which failed
   * @param peakInFlight the most requests in flight seen at a finish
   * @param latencies their latencies in millis, the most recent last (at most the rule's kept)
   */
  record Samples(int count, int errors, int peakInFlight, long[] latencies) {}

  /**
   * A closed window: every sample added since the last close.
   *
   * @param start when its first sample was added, epoch millis
   * @param count requests finished
   * @param errors of which failed
   * @param peakInFlight the most requests in flight seen at a finish
   * @param latencies the most recent latencies, at most the rule's kept, most recent last
   * @param state what the last decision saved ({@link #save}), or null before the first
   * @param capacity the line's capacity as the store holds it when the window closed, or -1 where
   *     the window does not keep it (the decision then starts from the capacity the caller knows)
   */
  record Closed(
      long start,
      int count,
      int errors,
      int peakInFlight,
      long[] latencies,
      String state,
      int capacity) {}

  /**
   * Adds {@code samples} at {@code now}; the first sample of a window opens it. When the window is
   * then due by {@code rule}, closes it (the next sample opens the next) and returns it, to this
   * caller only; else returns null. An add of no samples changes nothing.
   */
  Closed add(Samples samples, long now, Rule rule);

  /** Saves the state of the decision taken on the last closed window: the next one carries it. */
  void save(String state);
}
