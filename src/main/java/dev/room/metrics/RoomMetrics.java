package dev.room.metrics;

import dev.room.Event;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Publishes a {@link WaitingRoom}'s state and events to a Micrometer {@link MeterRegistry}.
 *
 * <pre>{@code
 * new RoomMetrics(room).bindTo(registry);          // or a MeterBinder bean in Spring Boot
 * }</pre>
 *
 * <p>Gauges, read when the registry is scraped: {@value #CAPACITY}, {@value #IN_FLIGHT}, {@value
 * #QUEUE_DEPTH} ({@link WaitingRoom#queueDepth()}), {@value #LIVE_QUEUE_DEPTH} ({@link
 * WaitingRoom#liveQueueDepth()}), {@value #UTILIZATION}, {@value #UTILIZATION_SMOOTHED}, {@value
 * #ADMISSION_RATE} ({@link WaitingRoom#measuredAdmissionRate()}) and {@value #MODE}: one gauge per
 * {@link RoomMode}, tagged {@code mode} ({@code open}, {@code passthrough}, …), reading 1 for the
 * room's mode and 0 for the others, so a gate switched off shows on a dashboard. Counters: {@value
 * #STATE_LOSSES} (a Redis that lost the room, {@link WaitingRoom#stateLosses()}), and {@value
 * #EVENTS}, tagged {@code event} with the lower-case {@link Event} name ({@code enter}, {@code
 * queue}, {@code evict}, …). In Prometheus these read {@code room_in_flight}, {@code
 * room_events_total{event="enter"}} and so on.
 *
 * <p>The counters are fed by handlers added with {@link WaitingRoom#on}, so they run on the room's
 * event thread: they lag the room by the time an event takes to be delivered, and do not count
 * events the room drops when its handlers fall behind. {@link WaitingRoom#off} removes them along
 * with the application's handlers for that event. Counting {@code enter} and {@code exit} makes the
 * room build an event for every admitted request; that is cheap, but not free.
 *
 * <p>Micrometer is an optional dependency of {@code room}: this class is only usable when {@code
 * io.micrometer:micrometer-core} is on the application's class path (or module path).
 */
public final class RoomMetrics implements MeterBinder {
  /** Gauge: the number of slots. */
  public static final String CAPACITY = "room.capacity";

  /** Gauge: requests holding a slot. */
  public static final String IN_FLIGHT = "room.in.flight";

  /** Gauge: clients waiting with a position of 1 or more. */
  public static final String QUEUE_DEPTH = "room.queue.depth";

  /** Gauge: clients holding a ticket, including those told ready and not yet back. */
  public static final String LIVE_QUEUE_DEPTH = "room.queue.live.depth";

  /** Gauge: in-flight requests ÷ capacity. */
  public static final String UTILIZATION = "room.utilization";

  /** Gauge: {@link #UTILIZATION} smoothed over about ten seconds. */
  public static final String UTILIZATION_SMOOTHED = "room.utilization.smoothed";

  /** Gauge: admissions a second, measured and smoothed (NaN while unknown). */
  public static final String ADMISSION_RATE = "room.admission.rate";

  /** Gauges tagged {@code mode}: 1 for the room's {@link RoomMode}, 0 for the others. */
  public static final String MODE = "room.mode";

  /** Counter: arrivals refused a ticket by the join limit (join guard). */
  public static final String JOINS_REFUSED = "room.joins.refused";

  /** Counter: proof-of-work solutions refused (forged, expired, wrong or replayed). */
  public static final String CHALLENGES_REFUSED = "room.challenges.refused";

  /**
   * Counter: times the line's shared store (Redis) lost the room's state, the waiting visitors'
   * places with it ({@link WaitingRoom#stateLosses()}).
   */
  public static final String STATE_LOSSES = "room.state.losses";

  /** Counter of events, tagged {@code event}. */
  public static final String EVENTS = "room.events";

  private final WaitingRoom room;
  private final Tags tags;

  /** Binds {@code room}'s meters without extra tags. */
  public RoomMetrics(WaitingRoom room) {
    this(room, Tags.empty());
  }

  /** Binds {@code room}'s meters with {@code tags} on each (say, {@code room=checkout}). */
  public RoomMetrics(WaitingRoom room, Iterable<Tag> tags) {
    this.room = Objects.requireNonNull(room, "room");
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, CAPACITY, "The number of slots", WaitingRoom::capacity);
    gauge(registry, IN_FLIGHT, "Requests holding a slot", WaitingRoom::inFlight);
    gauge(
        registry,
        QUEUE_DEPTH,
        "Clients waiting with a position of 1 or more",
        WaitingRoom::queueDepth);
    gauge(
        registry,
        LIVE_QUEUE_DEPTH,
        "Clients holding a ticket, including those told ready and not yet back",
        WaitingRoom::liveQueueDepth);
    gauge(registry, UTILIZATION, "In-flight requests / capacity", WaitingRoom::utilization);
    gauge(
        registry,
        UTILIZATION_SMOOTHED,
        "In-flight requests / capacity, smoothed over about ten seconds",
        WaitingRoom::utilizationSmoothed);
    gauge(
        registry,
        ADMISSION_RATE,
        "Admissions a second, measured and smoothed",
        WaitingRoom::measuredAdmissionRate);
    for (RoomMode m : RoomMode.values()) {
      Gauge.builder(MODE, room, r -> r.mode() == m ? 1 : 0)
          .description("1 for the room's mode (open, queue_all, paused, passthrough, closed)")
          .tags(tags)
          .tag("mode", m.name().toLowerCase(Locale.ROOT))
          .strongReference(true)
          .register(registry);
    }
    // join guard (r3-guard)
    FunctionCounter.builder(JOINS_REFUSED, room, WaitingRoom::joinsRefused)
        .description("Arrivals refused a ticket by the join limit")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(CHALLENGES_REFUSED, room, WaitingRoom::challengesRefused)
        .description("Proof-of-work solutions refused")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(STATE_LOSSES, room, WaitingRoom::stateLosses)
        .description("Times the line's shared store lost the room's state, the line with it")
        .tags(tags)
        .register(registry);
    for (Event e : Event.values()) {
      Counter counter =
          Counter.builder(EVENTS)
              .description("Waiting-room events")
              .tags(tags)
              .tag("event", e.name().toLowerCase(Locale.ROOT))
              .register(registry);
      room.on(e, snapshot -> counter.increment());
    }
  }

  private void gauge(
      MeterRegistry registry, String name, String description, ToDoubleFunction<WaitingRoom> f) {
    Gauge.builder(name, room, f)
        .description(description)
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }
}
