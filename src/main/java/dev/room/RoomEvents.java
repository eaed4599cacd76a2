package dev.room;

import dev.room.engine.EventBus;
import dev.room.spi.Line;
import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import java.util.function.IntSupplier;

/**
 * The room's events: snapshots built only when someone listens, and the FULL/DRAIN edges.
 *
 * <p>Impl notes: only edges take the lock; the callers' checks are a volatile read and the
 * free-slot count. A caller changes the slots first and reads the flag after, and an edge writes
 * the flag first and reads the slots after (the loop), so of a slot change and a concurrent edge at
 * least one sees the other: no edge is lost, and since flag and publish change together under the
 * lock, FULL and DRAIN alternate in the order handlers receive them.
 */
final class RoomEvents implements EventSink {
  private final EventBus bus = new EventBus("");
  private final Line line;
  private final IntSupplier inFlight;
  private final Object edges = new Object();
  private volatile boolean full;

  /** The admission log's journal (set once, by {@link AuditHook}); {@code observed}: not exact. */
  volatile LineJournal journal = LineJournal.NONE;

  volatile boolean observed;

  RoomEvents(Line line, IntSupplier inFlight) {
    this.line = line;
    this.inFlight = inFlight;
  }

  EventBus bus() {
    return bus;
  }

  boolean listening(Event e) {
    return bus.listening(e);
  }

  @Override
  public LineJournal journal() {
    return journal;
  }

  @Override
  public void fire(Event e, String token, String clientKey, boolean stale, String detail) {
    if (e == Event.MODE) {
      journal.note("mode", detail);
    }
    if (bus.listening(e)) {
      bus.publish(
          new Snapshot(
              e,
              inFlight.getAsInt(),
              line.capacity(),
              line.waiting(),
              token,
              clientKey,
              stale,
              detail));
    }
  }

  /** Fires a ticket's event with its client key ({@code known}, or looked up when null). */
  void fireFor(Event e, String token, TicketInfo known) {
    if (bus.listening(e)) {
      TicketInfo t = known != null ? known : line.ticket(Tokens.hi(token), Tokens.lo(token));
      fire(e, token, t == null ? "" : t.clientKey(), false);
    }
  }

  /** A slot was taken: ENTER, and FULL when it was the last. */
  void entered() {
    if (bus.listening(Event.ENTER)) {
      fire(Event.ENTER, "", "", false);
    }
    if (!full && line.freeSlots() <= 0) {
      edge();
    }
  }

  /** Fires DRAIN when a slot is free again; called wherever a slot may have been given back. */
  void drained() {
    if (full && line.freeSlots() > 0) {
      edge();
    }
  }

  /** Moves the full flag to what the slots say, firing FULL or DRAIN for each change, in order. */
  void edge() {
    synchronized (edges) {
      while (true) {
        boolean now = line.freeSlots() <= 0;
        if (now == full) {
          return;
        }
        full = now;
        fire(now ? Event.FULL : Event.DRAIN, "", "", false);
      }
    }
  }

  /** Fires EVICT for an outcome that retired a ticket, TIMEOUT for one whose offer lapsed. */
  void retired(long outcome) {
    if (Outcome.has(outcome, Outcome.EVICTED)) {
      fire(Event.EVICT, "", "", false);
    } else if (Outcome.has(outcome, Outcome.TIMED_OUT)) {
      fire(Event.TIMEOUT, "", "", false);
      drained();
    }
  }
}
