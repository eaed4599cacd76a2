package dev.room.sample;

import dev.room.Event;
import dev.room.WaitingRoom;
import dev.room.metrics.RoomMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The last ten minutes of the room, one sample a second, for the dashboard's chart.
 *
 * <p>Event totals come from the {@link RoomMetrics} counters in {@code registry}: the dashboard and
 * {@code /metrics} always agree.
 */
final class RoomHistory implements AutoCloseable {
  static final int SECONDS = 600;

  private final WaitingRoom room;
  private final MeterRegistry registry;
  private final ScheduledExecutorService sampler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "room-history");
            t.setDaemon(true);
            return t;
          });

  // Ring buffers guarded by this.
  private final long[] at = new long[SECONDS];
  private final int[] depth = new int[SECONDS];
  private final int[] inFlight = new int[SECONDS];
  private final int[] capacity = new int[SECONDS];
  private final long[] admitted = new long[SECONDS];
  private int next;
  private int size;

  RoomHistory(WaitingRoom room, MeterRegistry registry) {
    this.room = room;
    this.registry = registry;
  }

  void start() {
    sampler.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);
  }

  /** Total events of this kind since start-up. */
  long total(Event e) {
    Counter c =
        registry.find(RoomMetrics.EVENTS).tag("event", e.name().toLowerCase(Locale.ROOT)).counter();
    return c == null ? 0 : (long) c.count();
  }

  synchronized void sample() {
    at[next] = System.currentTimeMillis();
    depth[next] = (int) Math.min(Integer.MAX_VALUE, room.queueDepth());
    inFlight[next] = room.inFlight();
    capacity[next] = room.capacity();
    admitted[next] = total(Event.ENTER);
    next = (next + 1) % SECONDS;
    size = Math.min(size + 1, SECONDS);
  }

  /** Admissions per second over the last five seconds. */
  synchronized double admittedPerSecond() {
    if (size < 2) {
      return 0;
    }
    int last = (next - 1 + SECONDS) % SECONDS;
    int span = Math.min(5, size - 1);
    int first = (last - span + SECONDS) % SECONDS;
    double seconds = Math.max(1, at[last] - at[first]) / 1000.0;
    return (admitted[last] - admitted[first]) / seconds;
  }

  /** The samples, oldest first. */
  synchronized Series series() {
    Series s = new Series(size);
    int start = (next - size + SECONDS) % SECONDS;
    for (int i = 0; i < size; i++) {
      int j = (start + i) % SECONDS;
      s.at[i] = at[j];
      s.depth[i] = depth[j];
      s.inFlight[i] = inFlight[j];
      s.capacity[i] = capacity[j];
    }
    return s;
  }

  /** A copy of the history: parallel arrays, oldest first. */
  static final class Series {
    final long[] at;
    final int[] depth;
    final int[] inFlight;
    final int[] capacity;

    Series(int n) {
      at = new long[n];
      depth = new int[n];
      inFlight = new int[n];
      capacity = new int[n];
    }
  }

  @Override
  public void close() {
    sampler.shutdownNow();
  }
}
