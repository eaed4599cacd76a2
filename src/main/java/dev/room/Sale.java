package dev.room;

import dev.room.engine.LocalControls;
import dev.room.engine.LocalPresaleStore;
import dev.room.engine.PresaleDraw;
import dev.room.spi.Controls;
import dev.room.spi.Line;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.PresaleStore;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controls of a sale behind a {@link WaitingRoom}: its mode, announcement, admission rate,
 * pre-sale lottery, measured admission rate and wait estimates, and adaptive capacity. A
 * coordinator over the settings ({@link FleetControls}), the pre-sale ({@link Lottery}), the hold
 * on admission they decide ({@link AdmissionHold}), the fleet's changes ({@link FleetSync}), what a
 * waiter is told ({@link Standing}) and the capacity controller's feed ({@link CapacityFeedback}).
 *
 * <p>Implementation notes. Mode changes, the draw and pre-sale changes are serialised on this
 * object's monitor. Lock order: this monitor, the pacer's, the line's lock. The request path reads
 * volatile fields only, and takes the monitor once, for the draw, at the first call at or after the
 * opening, and when the fleet changed something.
 *
 * <p>Mode, announcement, admission rate and pre-sale are the line's (the fleet's, when the line is
 * shared by several instances): a setter first adopts what the fleet has, then writes its own;
 * changes made elsewhere are adopted without an event (the event belongs to the instance where the
 * change was made). Settings given while the room is being built seed the fleet's only where the
 * fleet has none, so an instance that restarts joins the fleet as it is.
 */
final class Sale {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingRoom.class);

  static final int MAX_ANNOUNCEMENT = 1000;

  private final EventSink events;
  private final Supplier<String> displayName;
  private final FleetControls settings;
  private final Lottery lottery;
  private final AdmissionHold hold;
  private final FleetSync fleet;
  private final CapacityFeedback feedback;
  private boolean building = true; // until start: settings seed the fleet's, never replace them
  private volatile Runnable alsoOnSync = () -> {}; // fleet settings (u3-settings)

  /**
   * A sale over {@code line}, publishing to {@code events}; a capacity controller's decisions go to
   * {@code capacity}, and its failures are counted by {@code userCode}.
   */
  Sale(
      EventSink events,
      Line line,
      IntConsumer capacity,
      Supplier<String> displayName,
      UserCode userCode) {
    this.events = events;
    this.displayName = displayName;
    Controls shared = line.controls();
    this.settings = new FleetControls(shared != null ? shared : new LocalControls(), displayName);
    PresaleStore p = line.presales();
    this.lottery =
        new Lottery(p != null ? p : new LocalPresaleStore(line), p != null, events, displayName);
    this.hold = new AdmissionHold(line, settings, lottery);
    this.fleet = new FleetSync(settings, lottery, hold);
    this.feedback = new CapacityFeedback(line, capacity, displayName, userCode);
  }

  /** Sets the line's allowance from the settings; called once the room is built. */
  synchronized void start(long now) {
    building = false;
    fleet.adopt(now);
    hold.apply(now);
  }

  // ── Settings ───────────────────────────────────────────────────────────

  void setMode(RoomMode next, long now) {
    Objects.requireNonNull(next, "mode");
    RoomMode previous;
    synchronized (this) {
      if (joinsFleet(Controls.MODE, now)) {
        return; // a restarting instance joins the fleet's mode
      }
      previous = settings.mode();
      if (previous == next) {
        return;
      }
      settings.setMode(next);
      hold.apply(now);
      // queued in order, carrying this mode
      events.fire(Event.MODE, "", "", false, next.name().toLowerCase(java.util.Locale.ROOT));
    }
    if (next == RoomMode.PASSTHROUGH) {
      LOG.warn(
          "room {}: PASSTHROUGH: the waiting room is OFF; every request goes straight to the"
              + " application (was {})",
          displayName.get(),
          previous);
    } else {
      LOG.info("room {}: mode {} (was {})", displayName.get(), next, previous);
    }
  }

  RoomMode mode() {
    return settings.mode();
  }

  void setAnnouncement(String text, long now) {
    String a = text == null ? "" : text.strip();
    if (a.length() > MAX_ANNOUNCEMENT) {
      throw Checks.invalid(
          "announcement", "must be at most " + MAX_ANNOUNCEMENT + " characters, was " + a.length());
    }
    synchronized (this) {
      if (joinsFleet(Controls.ANNOUNCEMENT, now)) {
        return;
      }
      settings.setAnnouncement(a);
    }
  }

  String announcement() {
    return settings.announcement();
  }

  synchronized void setAdmissionRate(double perSecond, long now) {
    if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
      throw Checks.invalid(
          "admissionRate", "must be 0 (unlimited) or a positive number, was " + perSecond);
    }
    if (joinsFleet(Controls.RATE, now)) {
      return;
    }
    settings.setAdmissionRate(perSecond);
    hold.apply(now);
  }

  double admissionRate() {
    return settings.admissionRate();
  }

  /**
   * Adopts the fleet's settings, then answers whether a setting of {@code control} made while the
   * room is being built gives way to the fleet's. Caller holds the monitor.
   */
  private boolean joinsFleet(String control, long now) {
    return fleet.adopt(now) && building && settings.fleetHas(control);
  }

  void setCapacityController(CapacityController c) {
    feedback.setController(c);
  }

  CapacityController capacityController() {
    return feedback.controller();
  }

  // ── The pre-sale lottery ───────────────────────────────────────────────

  /**
   * Schedules, moves or (null) cancels the pre-sale for the fleet. While the room is being built a
   * pre-sale the fleet already has stays as it is: a restarting instance joins it.
   */
  synchronized void schedulePresale(Instant opensAt, long now) {
    fleet.adopt(now);
    if (lottery.schedule(opensAt, now, building)) {
      hold.apply(now);
    }
  }

  String presaleSeedHash() {
    return lottery.seedHash();
  }

  Optional<String> presaleSeed() {
    return lottery.seed();
  }

  Optional<Instant> presaleOpensAt() {
    return lottery.opensAt();
  }

  Presale presale() {
    return lottery.presale();
  }

  /**
   * Adopts the pre-sale of an imported line (its seed, and whether it was drawn), before the line
   * is restored, so a pending draw holds the restored line; the room ticks once the line is in.
   */
  synchronized void restorePresale(Presale p, long now) {
    fleet.adopt(now);
    lottery.restore(p);
    hold.apply(now);
  }

  /** Whether the pre-sale's arrivals still wait for their draw. */
  boolean presalePending() {
    return lottery.pending();
  }

  // ── The request path ───────────────────────────────────────────────────

  /** Runs the draw when the pre-sale opens and tops the admission rate up. Cheap otherwise. */
  void tick(long now) {
    if (fleet.due(now)) {
      if (fleet.behind()) {
        synchronized (this) {
          fleet.adopt(now); // reads again: see FleetSync#behind
        }
      }
      alsoOnSync.run(); // fleet settings (u3-settings)
    }
    Presale p = lottery.presale();
    if (p != null && !p.drawn() && now >= p.opensAt()) {
      draw(now);
    }
    hold.tick(now);
  }

  /** Runs {@code r} on every sync of the controls: once a second at most, on the request path. */
  void alsoOnSync(Runnable r) {
    alsoOnSync = r;
  }

  void admitted() {
    hold.meter().record();
  }

  /** A gated request finished: feeds the capacity controller, if any. */
  void finished(long now, long latencyMillis, boolean failed, int inFlight) {
    feedback.finished(now, latencyMillis, failed, inFlight);
  }

  /** Admissions a second, measured and smoothed; NaN while unknown or held. */
  double measuredRate(long now) {
    return hold.meter().perSecond(now);
  }

  /** A waiting visitor's standing at {@code position}, as the status JSON carries it. */
  Standing standing(long position, long now) {
    return Standing.of(
        settings.mode(), lottery.presale(), settings.announcement(), hold.meter(), position, now);
  }

  // ── Internals ──────────────────────────────────────────────────────────

  /**
   * The draw, once for the fleet: the store draws only for the first room to ask at or after the
   * opening; every other room adopts the result.
   */
  private void draw(long now) {
    int n;
    Presale p;
    synchronized (this) {
      p = lottery.presale();
      if (p == null || p.drawn() || now < p.opensAt()) {
        return;
      }
      try {
        n = lottery.draw(p, now);
        fleet.adopt(now); // the fleet's result when another room drew (or moved the opening)
      } catch (LineUnavailableException e) {
        return; // still pending: the next request after the line is back draws
      }
      hold.apply(now);
    }
    if (n < 0) {
      return;
    }
    LOG.info(
        "room {}: pre-sale draw: {} arrivals placed at random; seed {} (SHA-256 {})",
        displayName.get(),
        n,
        PresaleDraw.hex(p.seed()),
        p.seedHash());
  }
}
