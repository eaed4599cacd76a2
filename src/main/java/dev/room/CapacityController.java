package dev.room;

/**
 * Sets a room's capacity from the health of the application it protects; installed with {@link
 * WaitingRoom#setCapacityController}.
 *
 * <p>The filter measures every gated request on the room's clock, from admission to the response's
 * completion (asynchronous requests included), and reports it here; a request fails when its status
 * is 500 or more or it threw. The room then sets the capacity returned. Implementations are called
 * on request threads, concurrently, and must be thread-safe and cheap. One that throws changes
 * nothing for that request, which still gives its slot back; the throw is counted in {@link
 * WaitingRoom#callbackFailures()} and logged at most once a minute.
 */
@FunctionalInterface
public interface CapacityController {

  /**
   * Takes one finished gated request into account and returns the capacity the room should have (at
   * least 1; returning {@code capacity} changes nothing).
   *
   * @param now when the request finished, epoch millis on the room's clock
   * @param latencyMillis how long it held its slot
   * @param failed whether it ended with a status of 500 or more, or threw
   * @param inFlight requests holding a slot now
   * @param capacity the room's capacity now
   */
  int onSample(long now, long latencyMillis, boolean failed, int inFlight, int capacity);

  /**
   * The health-driven controller: lowers capacity quickly on sustained trouble, raises it slowly
   * while the application is healthy and busy, and always stays within {@code [min, max]}.
   *
   * <p>It judges one window of requests at a time (at least a second and five requests): the
   * window's median latency against a baseline (the lowest window median seen, re-measured only
   * when the application is slower at no more load), and its error rate. Two troubled windows in a
   * row (median above twice the baseline, or 5% errors) cut capacity by a quarter; a window with
   * 25% errors halves it at once. Three healthy windows in a row (median within 1.25 times the
   * baseline, under 1% errors, at least 80% of the slots used) raise it by a tenth (at least one).
   * Between the two bands it holds. So one slow request, or one bad window, never moves it, and it
   * settles rather than oscillates. In the spirit of Netflix's concurrency-limits gradient and AIMD
   * limits.
   *
   * @throws IllegalArgumentException when {@code min < 1} or {@code max < min}
   */
  static CapacityController adaptive(int min, int max) {
    return new AdaptiveCapacity(min, max);
  }
}
