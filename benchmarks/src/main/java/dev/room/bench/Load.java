package dev.room.bench;

/**
 * One load-generator run against one URL: what it achieved.
 *
 * @param requestsPerSecond completed requests per second over the run
 * @param p50Micros median latency
 * @param p99Micros 99th-percentile latency
 * @param requests completed requests
 * @param non2xx responses whose status was not 2xx or 3xx (a poll answered 429 counts here)
 * @param errors connect, read, write and timeout errors
 */
record Load(
    double requestsPerSecond,
    double p50Micros,
    double p99Micros,
    long requests,
    long non2xx,
    long errors) {

  /** Drives HTTP load at a loopback URL for a fixed time. */
  interface Generator {
    /**
     * Runs closed-loop load on {@code url} for {@code seconds}; when {@code rotateTickets} is
     * positive, the {@code k}-th request carries the {@code room_ticket} cookie of synthetic client
     * {@code (firstTicket + k) mod rotateTickets + 1} (see {@link HttpBench#ticket}), so a caller
     * that passes on where the last run stopped keeps every client's polls a full rotation apart.
     */
    Load run(String url, int seconds, int rotateTickets, long firstTicket) throws Exception;

    /** What generated the load, for the report. */
    String describe();
  }
}
