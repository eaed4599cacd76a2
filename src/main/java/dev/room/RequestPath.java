package dev.room;

import dev.room.engine.Reaper;
import dev.room.engine.Smoother;
import dev.room.spi.Line;
import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The room's side of a request: each line call with the sale's tick before it and the events its
 * outcome implies after it, and the slot given back. The filter reaches it through the room's
 * package-private methods of the same names.
 */
final class RequestPath implements SlotReleaser {
  private final InstantSource clock;
  private final Line line;
  private final Sale sale;
  private final Sessions sessions;
  private final RoomEvents events;
  private final RoomSettings settings;
  private final Smoother utilization = new Smoother(10_000);
  private volatile Policy policy;
  private Reaper reaper;

  RequestPath(
      InstantSource clock,
      Line line,
      Sale sale,
      Sessions sessions,
      RoomEvents events,
      RoomSettings settings) {
    this.clock = clock;
    this.line = line;
    this.sale = sale;
    this.sessions = sessions;
    this.events = events;
    this.settings = settings;
  }

  /** The room's settings are applied: the line's policy follows them from now on. */
  void start() {
    this.policy = settings.policy();
  }

  /** The reaper a setting change reschedules; set once it runs, after {@link #start}. */
  void reaper(Reaper reaper) {
    this.reaper = reaper;
  }

  Policy policy() {
    return policy;
  }

  /** A setting changed: the policy follows, and a shorter cadence brings the next pass forward. */
  void refresh() {
    Reaper r = reaper;
    if (r != null) {
      Policy p = settings.policy();
      if (!p.equals(policy)) {
        policy = p;
      }
      r.reschedule(); // never pushes a pass back; a cadence unchanged changes nothing
    }
  }

  /** Requests being served now (in SESSIONS mode, those of active sessions). */
  int inFlight() {
    return Math.max(0, line.inFlight() - sessions.active()) + sessions.requests().get();
  }

  double utilization() {
    return (double) line.inFlight() / line.capacity();
  }

  double utilizationSmoothed() {
    return utilization.value(utilization(), clock.millis());
  }

  boolean tryEnter() {
    sale.tick(clock.millis());
    if (!line.tryEnter()) {
      return false;
    }
    entered();
    return true;
  }

  void entered() {
    sale.admitted();
    events.entered();
    head.departed(); // origin (issue 16)
  }

  void exit() {
    exitSlot();
    if (events.listening(Event.EXIT)) {
      events.fire(Event.EXIT, "", "", false);
    }
  }

  void sampled(long startedAt, boolean failed) {
    long now = clock.millis();
    sale.finished(now, now - startedAt, failed, line.inFlight());
  }

  @Override
  public void exitSlot() {
    long now = clock.millis();
    line.exit(now);
    slotReturned(now);
  }

  /** A slot came back to the line (a request's exit, or a session's end in its store). */
  void slotReturned(long now) {
    sale.tick(now);
    utilization.sample(utilization(), now);
    events.drained();
    head.slotFreed(); // origin (issue 16)
    absence(now);
  }

  // origin (issue 16): held status requests of the head of the line, answered when a slot frees
  private final HeadOfLine head = new HeadOfLine();

  HeadOfLine head() {
    return head;
  }

  // origin (issue 16): absence (Line.lapseAbsent) applied a few times a window, from whichever
  // status poll or freed slot comes by; a lapse frees slots, so the held polls are woken after it
  private final AtomicLong absenceAt = new AtomicLong(Long.MIN_VALUE / 2);
  private volatile long absenceWindow;

  void absence(long now) {
    Policy p = policy;
    if (p == null) {
      return;
    }
    long w = p.presenceWindow();
    long last = absenceAt.get();
    boolean due = w > 0 ? now - last >= Math.max(1, w / 4) : absenceWindow != 0;
    if (due && absenceAt.compareAndSet(last, now)) {
      absenceWindow = w;
      if (line.lapseAbsent(now, p) > 0) {
        head.slotFreed();
      }
    }
  }

  long poll(long hi, long lo, String token, long now) {
    sale.tick(now);
    long o = line.poll(hi, lo, now, policy);
    events.retired(o);
    if (Outcome.has(o, Outcome.FIRST_READY)) {
      events.fire(Event.OFFER, token, "", false);
    }
    absence(now);
    return o;
  }

  long claim(long hi, long lo, long now) {
    sale.tick(now);
    long o = line.claim(hi, lo, now, policy);
    events.retired(o);
    if (Outcome.kind(o) == Outcome.ADMITTED) {
      if (events.observed) {
        events.journal.observed(LineJournal.ADMIT, hi, lo, 0);
      }
      entered();
    }
    return o;
  }

  /**
   * A newcomer under token {@code t}: with {@code mint} a fresh random token, which the line may
   * finish ({@link Line#arrive(long[], String, String, boolean, long, Policy)}; the client gets it
   * as it is after), else a token the line stores as it is.
   */
  long arrive(
      long[] t, boolean mint, String identity, String clientKey, boolean pass, boolean stale) {
    long now = clock.millis();
    sale.tick(now);
    long o;
    if (mint) {
      o = line.arrive(t, identity, clientKey, pass, now, policy);
    } else if (identity == null) {
      o = line.arrive(t[0], t[1], clientKey, pass, now, policy);
    } else {
      o = line.arrive(t[0], t[1], identity, clientKey, pass, now, policy);
    }
    long hi = t[0];
    long lo = t[1];
    if (identity != null) {
      events.retired(o); // the identity's expired place, or a lapsed offer found on the takeover
      if (Outcome.has(o, Outcome.REJOINED)) { // an existing place moved here: no new ticket
        if (Outcome.kind(o) == Outcome.ADMITTED) { // the place's offer, taken on this device
          if (events.observed) {
            events.journal.observed(LineJournal.ADMIT, hi, lo, 0);
          }
          entered();
        }
        return o;
      }
    }
    if (events.observed && Outcome.kind(o) == Outcome.WAITING) {
      events.journal.observed(LineJournal.ARRIVE, hi, lo, Outcome.position(o));
    }
    switch (Outcome.kind(o)) {
      case Outcome.ADMITTED -> entered();
      case Outcome.REJECTED -> events.fire(Event.REJECT, "", clientKey, stale);
      case Outcome.WAITING -> {
        String token = Tokens.format(hi, lo); // as the line finished it
        events.fire(Event.QUEUE, token, clientKey, stale);
        if (Outcome.has(o, Outcome.PROMOTED)) {
          events.fire(Event.PROMOTE, token, clientKey, false);
        }
      }
      default -> {}
    }
    return o;
  }

  void passedThrough(long hi, long lo) {
    if (line.remove(hi, lo, clock.millis())) {
      events.drained();
    }
  }

  /** One reaper pass: expired tickets, lapsed offers, passes and sessions. */
  int evictExpired() {
    long now = clock.millis();
    sale.tick(now);
    int[] r = line.evict(now, policy);
    for (int i = 0; i < r[0]; i++) {
      events.fire(Event.EVICT, "", "", false);
    }
    for (int i = 0; i < r[1]; i++) {
      events.fire(Event.TIMEOUT, "", "", false);
    }
    line.sweepPasses(now);
    sessions.sweep(now);
    events.drained();
    return r[0];
  }
}
