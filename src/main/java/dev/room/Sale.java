package dev.room;

import dev.room.engine.AdmissionMeter;
import dev.room.engine.AdmissionPacer;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controls of a sale behind a {@link WaitingRoom}: its mode, announcement, admission rate,
 * pre-sale lottery, measured admission rate and wait estimates, and adaptive capacity.
 *
 * <p>Implementation notes. Admission is <em>held</em> unless the mode is {@link RoomMode#OPEN} and
 * no pre-sale waits for its draw. Holding is the line's allowance at 0, set by the {@link
 * AdmissionPacer} ({@link #applyGate}), so the line itself refuses every hand-over and fast-path
 * entry: no race with a request already past the room's checks can admit anyone. Mode changes, the
 * draw and pre-sale changes are serialised on this object's monitor. Lock order: this monitor, the
 * pacer's, the line's lock. The request path reads volatile fields only, and takes the monitor
 * once, for the draw, at the first call at or after the opening.
 *
 * <p>Mode, announcement and admission rate are the line's {@link Controls} when it has them (a line
 * shared by several instances): a setter first adopts what the fleet has, then writes its own; the
 * request path reads the controls at most once every {@value #SYNC_MILLIS} ms and adopts changes
 * made elsewhere (no event: the event belongs to the instance where the change was made). Settings
 * given while the room is being built seed the controls only where the fleet has none, so an
 * instance that restarts joins the fleet as it is. A line without controls keeps them here.
 *
 * <p>The pre-sale (schedule, seed, draw) is the line's {@link PresaleStore} in the same way: set on
 * any instance, adopted by the others at their next sync, and drawn once for the fleet by the first
 * room whose request path reaches the opening (the store draws and records it in one step; the
 * others adopt the result). The capacity controller {@link CapacityController#adaptive} on a line
 * with a {@link dev.room.spi.HealthWindow} decides from every instance's samples ({@link
 * FleetCapacity}); any other controller decides from this instance's.
 */
final class Sale {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingRoom.class);

  static final String PAUSED_MESSAGE =
      "Admission is paused for now. Everyone keeps their place in line, and this page carries on"
          + " by itself when admission resumes.";

  /** What a page whose place moved to another device says (a fair line: identity). */
  static final String MOVED_MESSAGE =
      "You joined the line again on another device or browser, so your place is kept there now."
          + " Carry on there, or reload this page to bring your place back here.";

  static final String CLOSED_MESSAGE =
      "Nobody more will be let in from this line. Should the sale reopen, everyone in it keeps"
          + " their place, and this page carries on by itself.";
  static final String QUEUE_ALL_MESSAGE =
      "Admission has not started yet. You have your place in line, and this page lets you in when"
          + " it starts.";
  static final String PRESALE_MESSAGE =
      "The sale has not opened yet. Everyone who arrives before it opens gets a place in line"
          + " drawn at random when it opens.";

  static final long POLL_MILLIS = 3000;
  static final long PAUSED_POLL_MILLIS = 5000;

  /**
   * As short as a pause's: a closed sale may reopen (more stock, a mistake undone), and those in
   * line must notice within one poll, not half a minute later.
   */
  static final long CLOSED_POLL_MILLIS = PAUSED_POLL_MILLIS;

  static final long MAX_POLL_MILLIS = 30_000;
  static final long NEAR_FRONT_POLL_MILLIS = 2000;
  static final long NEAR_FRONT = 10;
  static final int MAX_ANNOUNCEMENT = 1000;
  static final long SYNC_MILLIS = 1000;

  private final EventSink events;
  private final Line line;
  private final IntConsumer capacity;
  private final Supplier<String> displayName;
  private final UserCode userCode;
  private final AdmissionPacer pacer;
  private final AdmissionMeter meter = new AdmissionMeter(30_000);
  private volatile RoomMode mode = RoomMode.OPEN;
  private volatile String announcement = "";
  private volatile double admissionRate;
  private volatile Presale presale;
  private volatile CapacityController controller;
  private volatile FleetCapacity fleetCapacity; // the adaptive controller, deciding for the fleet
  private final dev.room.spi.HealthWindow health; // the fleet's, or null on a line of one room
  private final Controls controls;
  private final PresaleStore presales;
  private final boolean shared; // the line is shared: its pre-sale is the fleet's
  private long presaleSeen; // the pre-sale's version this room is in step with; under the monitor
  private final AtomicLong nextSync = new AtomicLong(Long.MIN_VALUE);
  private volatile long seen; // the controls' version this room is in step with
  private boolean building = true; // until start: settings seed the fleet's, never replace them

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
    this.line = line;
    this.capacity = capacity;
    this.displayName = displayName;
    this.userCode = userCode;
    this.pacer = new AdmissionPacer(line);
    Controls shared = line.controls();
    this.controls = shared != null ? shared : new LocalControls();
    PresaleStore p = line.presales();
    this.presales = p != null ? p : new LocalPresaleStore(line);
    this.shared = p != null;
    this.health = line.healthWindow();
  }

  /** Sets the line's allowance from the settings; called once the room is built. */
  synchronized void start(long now) {
    building = false;
    adopt(now);
    applyGate(now);
  }

  // ── Settings ───────────────────────────────────────────────────────────

  void setMode(RoomMode next, long now) {
    Objects.requireNonNull(next, "mode");
    RoomMode previous;
    synchronized (this) {
      if (adopt(now) && building && sharedMode != null) {
        return; // a restarting instance joins the fleet's mode
      }
      previous = mode;
      if (previous == next) {
        return;
      }
      share(Controls.MODE, next.name());
      mode = next;
      applyGate(now);
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
    return mode;
  }

  void setAnnouncement(String text, long now) {
    String a = text == null ? "" : text.strip();
    if (a.length() > MAX_ANNOUNCEMENT) {
      throw Checks.invalid(
          "announcement", "must be at most " + MAX_ANNOUNCEMENT + " characters, was " + a.length());
    }
    synchronized (this) {
      if (adopt(now) && building && sharedAnnouncement != null) {
        return;
      }
      share(Controls.ANNOUNCEMENT, a);
      announcement = a;
    }
  }

  String announcement() {
    return announcement;
  }

  synchronized void setAdmissionRate(double perSecond, long now) {
    if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
      throw Checks.invalid(
          "admissionRate", "must be 0 (unlimited) or a positive number, was " + perSecond);
    }
    if (adopt(now) && building && sharedRate != null) {
      return;
    }
    share(Controls.RATE, Double.toString(perSecond));
    admissionRate = perSecond;
    applyGate(now);
  }

  double admissionRate() {
    return admissionRate;
  }

  void setCapacityController(CapacityController c) {
    fleetCapacity =
        c instanceof AdaptiveCapacity a && health != null ? new FleetCapacity(a, health) : null;
    controller = c;
  }

  CapacityController capacityController() {
    return controller;
  }

  // ── The pre-sale lottery ───────────────────────────────────────────────

  /**
   * Schedules, moves or (null) cancels the pre-sale for the fleet. While the room is being built a
   * pre-sale the fleet already has stays as it is: a restarting instance joins it.
   */
  synchronized void schedulePresale(Instant opensAt, long now) {
    adopt(now);
    Presale p = presale;
    if (building && p != null && shared) {
      return;
    }
    if (opensAt == null) {
      if (p != null && p.drawn()) {
        throw new IllegalStateException("the pre-sale draw already took place");
      }
      if (adoptPresale(presales.cancel()) && presale != null) {
        throw new IllegalStateException("the pre-sale draw already took place");
      }
      presale = null;
      applyGate(now);
      return;
    }
    long at = opensAt.toEpochMilli();
    if (p != null && p.opensAt() == at) {
      return; // idempotent: a restart that scheduled again after importing its line
    }
    if (p != null && p.drawn()) {
      throw new IllegalStateException("the pre-sale draw already took place");
    }
    if (at <= now) {
      throw new IllegalArgumentException("opensAt must be in the future, was " + opensAt);
    }
    byte[] seed = p == null ? PresaleDraw.newSeed() : p.seed();
    PresaleStore.State s = presales.schedule(at, PresaleDraw.hex(seed));
    adoptPresale(s);
    if (s.drawn()) {
      throw new IllegalStateException("the pre-sale draw already took place");
    }
    if (p == null || !p.seedHash().equals(presale.seedHash())) {
      events.journal().note("presale", presale.seedHash());
    }
    applyGate(now);
  }

  String presaleSeedHash() {
    Presale p = presale;
    return p == null ? "" : p.seedHash();
  }

  Optional<String> presaleSeed() {
    Presale p = presale;
    return p != null && p.drawn() ? Optional.of(PresaleDraw.hex(p.seed())) : Optional.empty();
  }

  Optional<Instant> presaleOpensAt() {
    Presale p = presale;
    return p == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(p.opensAt()));
  }

  Presale presale() {
    return presale;
  }

  /**
   * Adopts the pre-sale of an imported line (its seed, and whether it was drawn), before the line
   * is restored, so a pending draw holds the restored line; the room ticks once the line is in.
   */
  synchronized void restorePresale(Presale p, long now) {
    adopt(now);
    PresaleStore.State s =
        p == null
            ? presales.replace(0, null, false, 0)
            : presales.replace(p.opensAt(), PresaleDraw.hex(p.seed()), p.drawn(), p.group());
    presaleSeen = s.version();
    presale = p;
    applyGate(now);
  }

  /** Whether the pre-sale's arrivals still wait for their draw. */
  boolean presalePending() {
    Presale p = presale;
    return p != null && !p.drawn();
  }

  // ── The request path ───────────────────────────────────────────────────

  /** Whether admission is held: any mode but OPEN, or a pre-sale not drawn yet. */
  boolean held() {
    return mode != RoomMode.OPEN || presalePending();
  }

  /** Runs the draw when the pre-sale opens and tops the admission rate up. Cheap otherwise. */
  void tick(long now) {
    long due = nextSync.get();
    if (now >= due && nextSync.compareAndSet(due, now + SYNC_MILLIS)) {
      sync(now);
      alsoOnSync.run(); // fleet settings (u3-settings)
    }
    Presale p = presale;
    if (p != null && !p.drawn() && now >= p.opensAt()) {
      draw(now);
    }
    pacer.tick(now);
  }

  private volatile Runnable alsoOnSync = () -> {}; // fleet settings (u3-settings)

  /** Runs {@code r} on every sync of the controls: once a second at most, on the request path. */
  void alsoOnSync(Runnable r) {
    alsoOnSync = r;
  }

  void admitted() {
    meter.record();
  }

  /**
   * A gated request finished: feeds the capacity controller, if any. A controller that throws
   * changes nothing; it is the application's code, on the path that gives the slot back.
   */
  void finished(long now, long latencyMillis, boolean failed, int inFlight) {
    CapacityController c = controller;
    if (c == null) {
      return;
    }
    FleetCapacity f = fleetCapacity;
    int capacity = line.capacity();
    int wanted;
    try {
      wanted =
          f != null && c == f.controller()
              ? f.onSample(now, latencyMillis, failed, inFlight, capacity)
              : c.onSample(now, latencyMillis, failed, inFlight, capacity);
    } catch (Throwable e) { // user code: anything it throws is caught
      userCode.failed(displayName.get(), "capacity controller", e);
      return;
    }
    if (wanted >= 1 && wanted != capacity) {
      this.capacity.accept(wanted);
    }
  }

  /** Admissions a second, measured and smoothed; NaN while unknown or held. */
  double measuredRate(long now) {
    return meter.perSecond(now);
  }

  // ── What a waiting visitor is told ─────────────────────────────────────

  /**
   * A waiting visitor's standing, as the status JSON carries it.
   *
   * @param state {@code waiting}, {@code paused}, {@code closed} or {@code passthrough}
   * @param showPosition whether the position means anything now (not while closed or before a
   *     pre-sale draw)
   * @param message the announcement, else a plain sentence for the state; {@code ""} for none
   * @param opensInSeconds seconds until a pending pre-sale opens, else -1
   * @param waitLow the low end of the wait estimate in seconds, else -1
   * @param waitHigh the high end, else -1
   * @param pollAfterMillis when to poll next, with jitter
   */
  record Standing(
      String state,
      boolean showPosition,
      String message,
      long opensInSeconds,
      long waitLow,
      long waitHigh,
      long pollAfterMillis) {}

  Standing standing(long position, long now) {
    RoomMode m = mode;
    Presale p = presale;
    boolean pending = p != null && !p.drawn();
    String message = announcement;
    if (message.isEmpty()) {
      message = explanation(m, pending);
    }
    long opensIn = pending ? Math.max(0, (p.opensAt() - now + 999) / 1000) : -1;
    long poll =
        switch (m) {
          case CLOSED -> CLOSED_POLL_MILLIS;
          case PAUSED -> PAUSED_POLL_MILLIS;
          default -> POLL_MILLIS;
        };
    poll = Math.min(MAX_POLL_MILLIS, load(poll, position));
    long low = -1;
    long high = -1;
    if (!held()) {
      double rate = meter.perSecond(now);
      if (rate > 0) {
        double estimate = position / rate;
        double spread = 0.25 + 2.0 / Math.sqrt(Math.max(1, position));
        low = (long) Math.floor(estimate / (1 + spread));
        high = (long) Math.ceil(estimate * (1 + spread) + poll / 1000.0);
        poll = Math.min(poll, Math.max(NEAR_FRONT_POLL_MILLIS, low * 1000 / 4));
      }
    }
    if (pending) {
      poll = Math.min(poll, Math.max(NEAR_FRONT_POLL_MILLIS, opensIn * 1000));
    } else if (position <= NEAR_FRONT && m != RoomMode.CLOSED) {
      poll = Math.min(poll, NEAR_FRONT_POLL_MILLIS); // the front learns first when admission runs
    }
    return new Standing(
        m.state(), m != RoomMode.CLOSED && !pending, message, opensIn, low, high, jitter(poll));
  }

  /** The plain-words sentence for a mode, {@code ""} when there is nothing to explain. */
  static String explanation(RoomMode m, boolean presalePending) {
    return switch (m) {
      case PAUSED -> PAUSED_MESSAGE;
      case CLOSED -> CLOSED_MESSAGE;
      case QUEUE_ALL -> presalePending ? PRESALE_MESSAGE : QUEUE_ALL_MESSAGE;
      default -> presalePending ? PRESALE_MESSAGE : "";
    };
  }

  /**
   * Longer polls the further back, which is where a long line's polls come from: ×1 up to place
   * 1000, ×2.5 at 10 000, ×4 at 100 000. Reading the position the poll already has costs nothing,
   * where the line's length may cost a round trip to a shared store.
   */
  private static long load(long base, long position) {
    if (position <= 1000) {
      return base;
    }
    return (long) (base * (1 + 1.5 * Math.log10(position / 1000.0)));
  }

  /** ±20% of {@code millis}, never under the poll interval the line enforces. */
  private static long jitter(long millis) {
    double f = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
    return Math.max(WaitingRoom.POLL_INTERVAL_MILLIS, (long) (millis * f));
  }

  // ── Internals ──────────────────────────────────────────────────────────

  /**
   * Puts the line's allowance and the meter in step with the settings. Caller holds the monitor.
   */
  private void applyGate(long now) {
    boolean open = !held();
    pacer.configure(open, admissionRate, now);
    if (open) {
      meter.start(now);
    } else {
      meter.stop(now);
    }
  }

  // ── Shared controls ────────────────────────────────────────────────────

  private String sharedMode;
  private String sharedAnnouncement;
  private String sharedRate;

  /** Adopts changes made on other instances, if any; one read of the controls. */
  private void sync(long now) {
    Controls.Settings s;
    try {
      s = controls.read();
    } catch (LineUnavailableException e) {
      return; // the settings in force stay; the next sync reads again
    }
    PresaleStore.State p;
    try {
      p = presales.read();
    } catch (LineUnavailableException e) {
      p = null;
    }
    if (s.version() != seen || (p != null && p.version() != presaleSeen)) {
      synchronized (this) {
        // Read again under the monitor: a setter on this room may have written since the read
        // above, and adopting that older read would undo it.
        adopt(now);
      }
    }
  }

  /**
   * Reads the controls and adopts what changed; caller holds the monitor. Returns whether the
   * controls could be read (false while the line is unreachable).
   */
  private boolean adopt(long now) {
    try {
      adopt(controls.read(), now);
    } catch (LineUnavailableException e) {
      return false;
    }
    try {
      if (adoptPresale(presales.read())) {
        applyGate(now);
      }
    } catch (LineUnavailableException e) {
      // the pre-sale in force stays; the next sync reads again
    }
    return true;
  }

  /**
   * Adopts the fleet's pre-sale, if it changed; caller holds the monitor. Returns whether this
   * room's pre-sale changed. A version gone back means the store lost it (Redis lost the room):
   * this room's pre-sale is the fleet's again.
   */
  private boolean adoptPresale(PresaleStore.State s) {
    if (s.version() == presaleSeen) {
      return false;
    }
    Presale p = presale;
    if (s.version() < presaleSeen) {
      PresaleStore.State again =
          p == null
              ? presales.replace(0, null, false, 0)
              : presales.replace(p.opensAt(), PresaleDraw.hex(p.seed()), p.drawn(), p.group());
      presaleSeen = again.version();
      return false;
    }
    presaleSeen = s.version();
    byte[] seed = s.scheduled() ? PresaleDraw.unhex(s.seed()) : null;
    Presale next = seed == null ? null : new Presale(s.opensAt(), seed, s.drawn(), s.group());
    if (java.util.Objects.equals(next, p)) {
      return false;
    }
    presale = next;
    if (next != null && !next.drawn() && (p == null || !p.seedHash().equals(next.seedHash()))) {
      events.journal().note("presale", next.seedHash()); // the commitment, in this room's log too
    }
    if (next != null && next.drawn() && (p == null || !p.drawn())) {
      LOG.info(
          "room {}: pre-sale drawn on another instance: {} arrivals placed at random; seed {}"
              + " (SHA-256 {})",
          displayName.get(),
          next.group(),
          PresaleDraw.hex(next.seed()),
          next.seedHash());
    }
    return true;
  }

  private void adopt(Controls.Settings s, long now) {
    sharedMode = s.mode();
    sharedAnnouncement = s.announcement();
    sharedRate = s.rate();
    if (s.version() == seen) {
      return;
    }
    if (s.version() < seen) {
      // The version went back: the store lost the controls (Redis lost the room). This room's
      // settings are the fleet's again, else the next instance to start would seed its own.
      seen = s.version();
      share(Controls.MODE, mode.name());
      share(Controls.ANNOUNCEMENT, announcement);
      share(Controls.RATE, Double.toString(admissionRate));
      return;
    }
    seen = s.version();
    boolean gate = false;
    RoomMode m = parseMode(s.mode());
    if (m != null && m != mode) {
      LOG.info("room {}: mode {} (set on another instance; was {})", displayName.get(), m, mode);
      mode = m;
      gate = true;
    }
    if (s.announcement() != null) {
      announcement = s.announcement();
    }
    double r = parseRate(s.rate());
    if (r >= 0 && r != admissionRate) {
      admissionRate = r;
      gate = true;
    }
    if (gate) {
      applyGate(now);
    }
  }

  /** Writes a control for the fleet; while the line is unreachable the setting is this room's. */
  private void share(String control, String value) {
    try {
      long v = controls.write(control, value);
      if (v == seen + 1) {
        seen = v; // nothing else changed meanwhile: this room is in step
      }
    } catch (LineUnavailableException e) {
      LOG.warn(
          "room {}: the line is unreachable; {} applies on this instance only",
          displayName.get(),
          control);
    }
  }

  private static RoomMode parseMode(String name) {
    if (name == null) {
      return null;
    }
    try {
      return RoomMode.valueOf(name);
    } catch (IllegalArgumentException e) {
      return null; // written by a newer version: keep the mode in force
    }
  }

  private static double parseRate(String rate) {
    if (rate == null) {
      return -1;
    }
    try {
      double r = Double.parseDouble(rate);
      return r >= 0 && !Double.isInfinite(r) ? r : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * The draw, once for the fleet: the store draws only for the first room to ask at or after the
   * opening; every other room adopts the result.
   */
  private void draw(long now) {
    int n;
    Presale p;
    synchronized (this) {
      p = presale;
      if (p == null || p.drawn() || now < p.opensAt()) {
        return;
      }
      byte[] seed = p.seed();
      String hex = PresaleDraw.hex(seed);
      boolean[] revealed = {false};
      try {
        n =
            presales.draw(
                now,
                hex,
                size -> {
                  if (!revealed[0]) {
                    revealed[0] = true;
                    events.journal().note("reveal", hex);
                  }
                  return PresaleDraw.order(seed, size);
                });
        if (n >= 0) {
          presale = p.afterDraw(n);
        }
        adopt(now); // the fleet's result when another room drew (or moved the opening)
      } catch (LineUnavailableException e) {
        return; // still pending: the next request after the line is back draws
      }
      applyGate(now);
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
