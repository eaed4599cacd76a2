package dev.room;

import dev.room.audit.AdmissionLog;
import dev.room.engine.EventBus;
import dev.room.engine.InMemoryLine;
import dev.room.engine.InMemorySessionStore;
import dev.room.engine.LocalFleetSettings;
import dev.room.engine.Reaper;
import dev.room.spi.FleetSettings;
import dev.room.spi.Line;
import dev.room.spi.Policy;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Currency;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A FIFO virtual waiting room: a fixed number of slots, and an ordered line for everyone else.
 *
 * <p>Requests take a slot while one is free and nobody waits. Everyone else gets a ticket and a
 * waiting page that polls its place in line; as slots free they go to the first in line, who are
 * told they are ready and admitted when they come back. Put it in front of an application with
 * {@link WaitingRoomFilter}.
 *
 * <pre>{@code
 * WaitingRoom room = WaitingRoom.builder().capacity(500).build();
 * context.addFilter(new FilterHolder(new WaitingRoomFilter(room)), "/*", EnumSet.of(REQUEST));
 * }</pre>
 *
 * <p>Running a sale: {@link #setMode} switches between open, queue-all, paused, passthrough and
 * closed; {@link #setAnnouncement} speaks to everyone waiting; {@link #setAdmissionRate} meters new
 * admissions; {@link #schedulePresale} runs an auditable pre-sale lottery; {@link
 * #setCapacityController} lets the application's health set the capacity; and the status JSON
 * carries an honest wait estimate and when to poll next.
 *
 * <p>Thread-safe; every setter may be called while serving. Every time-dependent decision reads the
 * {@link InstantSource} given to the builder. {@link #close()} stops the reaper and event delivery
 * and waits, bounded, for their threads.
 */
public final class WaitingRoom implements AutoCloseable {
  /** The default sliding ticket lifetime. */
  public static final Duration DEFAULT_TOKEN_TTL = Duration.ofMinutes(5);

  /** The default cadence of eviction passes. */
  public static final Duration DEFAULT_REAPER_INTERVAL = Duration.ofMinutes(5);

  /** The default time a client told it is ready has to come back. */
  public static final Duration DEFAULT_OFFER_TIMEOUT = Duration.ofSeconds(60);

  /** The ServletContext attribute under which a filter publishes its room. */
  public static final String CONTEXT_ATTRIBUTE = "dev.room.WaitingRoom";

  static final long POLL_INTERVAL_MILLIS = 1000;

  private final InstantSource clock;
  private final Line line;
  private final RoomSettings settings = new RoomSettings();
  private final Web web = new Web();
  private final UserCode userCode;
  private final RoomEvents events;
  private final Sale sale;
  private final Sessions sessions;
  private final RequestPath path;
  private final LineDesk desk;
  private final LineTransfer transfer;
  private final Reaper reaper;
  private final JoinGuard joinGuard; // join guard (r3-guard)
  private final AuditHook audit = new AuditHook();
  private final FleetAgreement fleet; // fleet settings (u3-settings)

  private WaitingRoom(Builder b) {
    this.clock = b.clock;
    this.userCode = new UserCode(clock);
    this.line = b.line != null ? b.line : new InMemoryLine(Checks.capacity(b.capacity));
    if (b.line != null && b.capacity > 0) {
      line.setCapacity(b.capacity, clock.millis());
    }
    web.linePersisted = !(line instanceof InMemoryLine);
    this.events = new RoomEvents(line, this::inFlight);
    this.sale = new Sale(events, line, this::setCapacity, settings::displayName, userCode);
    this.sessions =
        new Sessions(
            line.sharedSessions().orElseGet(() -> new InMemorySessionStore(line::exit)),
            this::slotReturned,
            now -> exitSlot(),
            events,
            () -> settings.name,
            this::claim,
            line::live,
            clock);
    this.path = new RequestPath(clock, line, sale, sessions, events, settings);
    this.desk = new LineDesk(clock, line, events, settings, web);
    this.transfer = new LineTransfer(clock, line, sale, path::policy);
    this.joinGuard = new JoinGuard(line); // join guard (r3-guard)
    FleetSettings shared = line.fleetSettings(); // fleet settings (u3-settings)
    this.fleet =
        new FleetAgreement(
            this, shared != null ? shared : new LocalFleetSettings(), settings::displayName);
    b.apply(this);
    try {
      fleet.start();
    } catch (IllegalStateException e) {
      events.bus().close();
      line.close(); // its lease and heartbeat would outlive a room never built
      throw e;
    }
    sale.alsoOnSync(fleet::sync);
    if (b.admissionLog != null) { // after the name, which its genesis entry records
      setAdmissionLog(b.admissionLog);
    }
    sale.start(clock.millis());
    path.start();
    Reaper r =
        b.reaperTimer == null
            ? new Reaper("", path::evictExpired, settings::reaperCadenceMillis)
            : new Reaper(path::evictExpired, settings::reaperCadenceMillis, b.reaperTimer);
    path.reaper(r);
    this.reaper = r;
  }

  /** Creates a room with {@code capacity} slots and default settings. */
  public static WaitingRoom create(int capacity) {
    return builder().capacity(capacity).build();
  }

  /** Starts building a room; every setter has a builder twin. */
  public static Builder builder() {
    return new Builder();
  }

  // ── Configuration ──────────────────────────────────────────────────────

  /** Sets the number of slots (≥ 1). Growing admits waiting clients at once. */
  public void setCapacity(int capacity) {
    line.setCapacity(Checks.capacity(capacity), clock.millis());
    events.edge();
  }

  public int capacity() {
    return line.capacity();
  }

  /** Sets the sliding ticket lifetime; {@code ZERO} restores the default; else 30 s – 24 h. */
  public void setTokenTtl(Duration ttl) {
    settings.tokenTtl = RoomSettings.tokenTtl(ttl);
    path.refresh();
    fleet.changed("tokenTtl"); // the line's other instances adopt it
  }

  public Duration tokenTtl() {
    return settings.tokenTtl;
  }

  /** Sets the eviction cadence; {@code ZERO} restores the default; else 5 s – 24 h. */
  public void setReaperInterval(Duration interval) {
    settings.reaperInterval = RoomSettings.reaperInterval(interval);
    path.refresh();
  }

  public Duration reaperInterval() {
    return settings.reaperInterval;
  }

  /**
   * Sets how long a new ticket may go without its client ever coming back; {@code ZERO} turns it
   * off; else 1 s – 24 h. The reaper runs at least this often while it is on.
   */
  public void setFirstPollGrace(Duration grace) {
    settings.firstPollGrace = RoomSettings.firstPollGrace(grace);
    path.refresh();
    fleet.changed("firstPollGrace"); // the line's other instances adopt it
  }

  public Duration firstPollGrace() {
    return settings.firstPollGrace;
  }

  /**
   * Sets how long a client told it is ready has to come back before its offer lapses (default 60 s;
   * 5 s – 1 h). The clock restarts when the client first learns it is ready. A lapsed offer passes
   * the slot to the next client in line who is polling and fires {@link Event#TIMEOUT}; the ticket
   * keeps its place and is offered the next slot once its client polls again. An offer the client
   * never learns of lapses as long after it was made, or after the first-poll grace (30 s when off)
   * for a client not heard from since an import.
   */
  public void setOfferTimeout(Duration timeout) {
    settings.offerTimeout = RoomSettings.offerTimeout(timeout);
    path.refresh();
    fleet.changed("offerTimeout"); // the line's other instances adopt it
  }

  public Duration offerTimeout() {
    return settings.offerTimeout;
  }

  /** Turns new arrivals away while this many wait; 0 = unlimited. */
  public void setMaxQueueDepth(long max) {
    settings.maxQueueDepth = RoomSettings.maxQueueDepth(max);
    path.refresh();
    fleet.changed("maxQueueDepth"); // the line's other instances adopt it
  }

  public long maxQueueDepth() {
    return settings.maxQueueDepth;
  }

  /**
   * Sets the status for arrivals turned away by {@link #setMaxQueueDepth}: 503 (default) or 429.
   */
  public void setQueueFullStatus(int status) {
    settings.queueFullStatus = RoomSettings.queueFullStatus(status);
  }

  public int queueFullStatus() {
    return settings.queueFullStatus;
  }

  /** Sets how long a VIP pass lasts; {@code ZERO} turns passes off (default); else 1 min – 24 h. */
  public void setPassDuration(Duration d) {
    settings.passDuration = RoomSettings.passDuration(d);
  }

  public Duration passDuration() {
    return settings.passDuration;
  }

  public void setSecureCookie(boolean secure) {
    web.secureCookie = secure;
  }

  public boolean secureCookie() {
    return web.secureCookie;
  }

  /**
   * Sets the cookies' Path. While it was never set, each filter writes its cookies with its servlet
   * context path ({@code /} at the root), so two applications on one host never share a ticket.
   * Changing it strands clients already queued.
   */
  public void setCookiePath(String path) {
    web.cookiePath = RoomSettings.cookiePath(path);
  }

  /** The cookie path set; {@code /} while it was never set. */
  public String cookiePath() {
    String p = web.cookiePath;
    return p == null ? "/" : p;
  }

  /** Sets the cookies' Domain ({@code ""} = none, the default). */
  public void setCookieDomain(String domain) {
    web.cookieDomain =
        domain == null || domain.isEmpty()
            ? ""
            : Checks.cookieAttribute("cookieDomain", domain, false);
  }

  public String cookieDomain() {
    return web.cookieDomain;
  }

  /**
   * Derives a key (say, the client IP) recorded with each ticket; capped at 256 bytes. One that
   * throws is taken as no key ({@code ""}; see {@link #callbackFailures()}).
   */
  public void setClientKeyFunction(Function<HttpServletRequest, String> fn) {
    web.clientKeyFunction = fn;
  }

  public Function<HttpServletRequest, String> clientKeyFunction() {
    return web.clientKeyFunction;
  }

  /** Prices skip-the-line moves; {@code null} turns paid promotion off. */
  public void setRateFunction(RateFunction fn) {
    web.rateFunction = fn;
  }

  public RateFunction rateFunction() {
    return web.rateFunction;
  }

  /** The target of the waiting page's "skip the line" button ({@code ""} = none). */
  public void setSkipUrl(String url) {
    web.skipUrl = url == null ? "" : url;
  }

  public String skipUrl() {
    return web.skipUrl;
  }

  /**
   * The currency of the skip-the-line prices ({@code null}, the default: none). The status JSON
   * then carries its ISO 4217 code as {@code currency} beside {@code skip_cost}, and the built-in
   * page shows amounts with its symbol; without one, amounts are plain decimals.
   */
  public void setCurrency(Currency currency) {
    web.currency = currency;
  }

  public Currency currency() {
    return web.currency;
  }

  /**
   * Says whether the line outlives a restart of this instance: a shared line does (the default for
   * any {@link Builder#line line} but the in-memory one), and so does an in-memory line the
   * application exports on shutdown and imports on start. Only then do the pages promise a visitor
   * that their place is kept while the site is unreachable.
   */
  public void setLinePersisted(boolean persisted) {
    web.linePersisted = persisted;
  }

  public boolean linePersisted() {
    return web.linePersisted;
  }

  /**
   * Replaces the waiting page; {@code null} restores the built-in one. Placeholders: {@code
   * {{.Position}}}, {@code {{.SkipURL}}}, {@code {{.StatusURL}}} and {@code {{.ProbeCookie}}}; for
   * a page drawn in the room's state on its first frame, {@code {{.Title}}}, {@code {{.Status}}}
   * (the status JSON now) and {@code {{.Texts}}} (the built-in words), as the built-in page does.
   */
  public void setHtml(String html) {
    web.page = html == null ? WaitingPage.DEFAULT : new WaitingPage(html);
  }

  public String html() {
    return web.page.source();
  }

  /**
   * Names the room (1-32 of {@code [a-z0-9-]}; {@code ""} = unnamed, the default). A name suffixes
   * every cookie ({@code room_ticket_<name>}, …), is bound into grants and moves the default status
   * path to {@code /queue/<name>/status}, so several rooms can share one application. Changing it
   * while clients are queued strands them.
   */
  public void setName(String name) {
    settings.name = RoomSettings.name(name);
    web.cookieSuffix = name.isEmpty() ? "" : "_" + name;
    fleet.changed("name"); // the line's other instances adopt it
  }

  public String name() {
    return settings.name;
  }

  // ── Running a sale ─────────────────────────────────────────────────────

  /**
   * Switches the room's {@link RoomMode} at once (default {@link RoomMode#OPEN}); fires {@link
   * Event#MODE}. Switching back to {@code OPEN} hands free slots to the first in line, in order.
   * With a line shared by several instances, set the same mode on each: the hold itself is shared,
   * what visitors are told is each instance's.
   */
  public void setMode(RoomMode mode) {
    sale.setMode(mode, clock.millis());
  }

  public RoomMode mode() {
    return sale.mode();
  }

  /**
   * Sets a sale-wide announcement (at most 1000 characters; {@code ""} = none, the default), shown
   * on the waiting page and carried in the status JSON as {@code message}. Without one, the status
   * explains a pause, a closed sale, queue-all and a pending pre-sale in plain words of its own.
   */
  public void setAnnouncement(String text) {
    sale.setAnnouncement(text, clock.millis());
  }

  public String announcement() {
    return sale.announcement();
  }

  /**
   * Limits new admissions to {@code perSecond} on top of capacity (0 = unlimited, the default):
   * slots handed to waiting clients and fast-path entries alike, smoothly, in bursts of at most
   * {@code max(1, ⌈perSecond⌉)}: over any t seconds at most {@code max(1, ⌈perSecond⌉) +
   * perSecond·t} clients are let in. Clients already told they are ready are not counted again.
   * Setting a rate again, changing it, or holding admission and resuming keeps what the bucket
   * holds: only a rate set from unlimited starts with a full burst. With a line shared by several
   * instances the bucket is the line's, one for the fleet: the rate is the sale's in all, whatever
   * the number of instances.
   */
  public void setAdmissionRate(double perSecond) {
    sale.setAdmissionRate(perSecond, clock.millis());
  }

  public double admissionRate() {
    return sale.admissionRate();
  }

  /**
   * Admissions a second as measured, smoothed over about half a minute on the room's clock; {@link
   * Double#NaN} while unknown (admission held, or not watched long enough yet). Wait estimates are
   * built from it.
   */
  public double measuredAdmissionRate() {
    return sale.measuredRate(clock.millis());
  }

  /**
   * Schedules a pre-sale lottery: everyone in line when the sale opens at {@code opensAt} (that is,
   * who arrived before it) is given a place drawn at random, once; later arrivals queue first come,
   * first served behind them. Until then nobody is admitted and waiting visitors are told the sale
   * has not opened. {@code null} cancels a pre-sale not yet drawn; scheduling again before the draw
   * moves the opening and keeps the seed; scheduling the same opening again is a no-op.
   *
   * <p>The draw is auditable. A random 32-byte seed is chosen now from {@link
   * java.security.SecureRandom}; {@link #presaleSeedHash()} (its SHA-256) can be published before
   * the opening and {@link #presaleSeed()} after it. The order is the seed's Fisher–Yates shuffle
   * of the arrivals in arrival order: for i from n−1 down to 1, swap element i with element j,
   * where j is the next word of the stream {@code SHA-256(seed || counter)} (counter = 0, 1, … as 8
   * big-endian bytes; the digest's first 8 bytes big-endian, shifted right one bit) that is below
   * {@code floor(2^63 / (i+1)) * (i+1)}, taken modulo i+1. The arrivals are the waiting tickets
   * that never moved (no promotion, pass or rank), by arrival number: in an export, the band-0
   * tickets holding their place ({@code order} equal to {@code place}, or an {@code arrival}
   * field), by {@code arrival} where present and {@code order} otherwise; their {@code place} then
   * shows the draw. Promoted and ranked clients keep their place; clients tied into a drawn place
   * stay ahead of whoever draws it. The draw survives export and import and is never run twice.
   *
   * <p>On a shared line (several instances on one Redis room) the pre-sale is the fleet's: set,
   * moved or cancelled on any instance, it is in force on all within about a second, with one seed,
   * and drawn exactly once, by the first instance to pass by at or after the opening. An instance
   * started during a pre-sale joins it; its own schedule is then ignored.
   *
   * @throws IllegalArgumentException when {@code opensAt} is not in the future
   * @throws IllegalStateException when the draw already took place at another time
   */
  public void schedulePresale(Instant opensAt) {
    sale.schedulePresale(opensAt, clock.millis());
  }

  /** When the scheduled pre-sale opens, if one is. */
  public Optional<Instant> presaleOpensAt() {
    return sale.presaleOpensAt();
  }

  /**
   * SHA-256 of the pre-sale's seed, in lower-case hex, to publish before the draw; {@code ""} for
   * none.
   */
  public String presaleSeedHash() {
    return sale.presaleSeedHash();
  }

  /**
   * The pre-sale's seed in hex, once drawn; empty before (it is the lottery's secret until then).
   */
  public Optional<String> presaleSeed() {
    return sale.presaleSeed();
  }

  /**
   * Lets {@code controller} set the capacity from the health of the gated requests (their latency
   * and failures, measured by the filter on the room's clock); {@code null} turns it off (the
   * default). See {@link CapacityController#adaptive(int, int)}. While one is on, it overrides
   * {@link #setCapacity} from its next decision. On a shared line, {@link
   * CapacityController#adaptive} decides once a window for the fleet, from every instance's samples
   * (give every instance the same bounds); any other controller decides from this instance's own
   * requests, and its decisions set the fleet's capacity all the same.
   */
  public void setCapacityController(CapacityController controller) {
    sale.setCapacityController(controller);
  }

  public CapacityController capacityController() {
    return sale.capacityController();
  }

  // ── Admission sessions ─────────────────────────────────────────────────

  /**
   * Chooses what holds a slot: a request (default) or a shopping session. Applies to admissions
   * from now on; slots already held are given back the way they were taken.
   */
  public void setAdmissionMode(AdmissionMode mode) {
    sessions.mode = Objects.requireNonNull(mode, "mode");
    fleet.changed("admissionMode"); // the line's other instances adopt it
  }

  public AdmissionMode admissionMode() {
    return sessions.mode;
  }

  /**
   * Sets how long a shopping session lasts without activity (default 10 min; 30 s – 7 days); every
   * gated request renews it, up to {@link #setSessionMaxDuration the absolute limit}.
   */
  public void setSessionDuration(Duration d) {
    sessions.duration = Sessions.checkDuration("sessionDuration", d, Sessions.DEFAULT_DURATION);
    fleet.changed("sessionDuration"); // the line's other instances adopt it
  }

  public Duration sessionDuration() {
    return sessions.duration;
  }

  /** Sets the absolute limit of a session from its claim (default 60 min; 30 s – 7 days). */
  public void setSessionMaxDuration(Duration d) {
    sessions.maxDuration =
        Sessions.checkDuration("sessionMaxDuration", d, Sessions.DEFAULT_MAX_DURATION);
    fleet.changed("sessionMaxDuration"); // the line's other instances adopt it
  }

  public Duration sessionMaxDuration() {
    return sessions.maxDuration;
  }

  /**
   * Makes {@code keyId} the key that signs grants (HMAC-SHA256; secret at least 32 bytes). Earlier
   * keys keep verifying until {@link #removeKey}, so a rotation logs nobody out. Instances that
   * share a line must share keys. By default each room signs with a random key of its own.
   */
  public void setSigningKey(String keyId, byte[] secret) {
    sessions.keys().install(keyId, secret);
  }

  /** Stops accepting grants signed with {@code keyId}; returns false when it was unknown. */
  public boolean removeKey(String keyId) {
    return sessions.keys().remove(keyId);
  }

  // ── A fair line: one place per identity (issue 18, r2-identity) ───────

  /**
   * Derives the identity a newcomer's ticket is bound to, say the signed-in account id ({@code
   * null} or blank: anonymous, as without a function; the default is none, and an IP address is
   * never one by default). Joining again with the same identity, from any device or browser,
   * returns the existing place: the new device gets the ticket's cookies under a fresh token and
   * the old device's next status poll says {@code "state":"moved"}. The rule is one atomic step of
   * the line (the Redis line's too), so concurrent joins converge on one ticket. Identities are
   * kept only as salted hashes ({@link dev.room.spi.Identities}), in memory, in Redis and in an
   * export, and forgotten when the ticket ends. One that throws is taken as anonymous.
   */
  public void setIdentityFunction(Function<HttpServletRequest, String> fn) {
    if (fn != null && !line.keepsIdentities()) {
      throw new IllegalStateException(
          "identityFunction: this room's line ("
              + line.getClass().getName()
              + ") keeps no"
              + " identities; use the in-memory line or RedisLine");
    }
    web.identityFunction = fn;
  }

  public Function<HttpServletRequest, String> identityFunction() {
    return web.identityFunction;
  }

  // ── end of a fair line: identity ──
  // ── A fair line: join guard (r3-guard) ───────────────────────────────

  /**
   * At most {@code perMinute} new tickets per client key per minute (0, the default, is no limit);
   * beyond it an arrival gets 429 with {@code Retry-After} and no ticket. The key is the {@link
   * #setClientKeyFunction client key}, or the remote address when there is none: behind a proxy,
   * set a key function that reads the client's address, or everyone shares the proxy's. Counted in
   * fixed minutes of the room's clock, so over any 60 s a key gets at most twice the limit; on a
   * shared (Redis) line the count is shared by every instance. Joins are counted, never merged: a
   * household behind one address shares the limit, each visitor with a place of its own.
   */
  public void setJoinLimit(int perMinute) {
    joinGuard.setJoinLimit(perMinute);
  }

  public int joinLimit() {
    return joinGuard.joinLimit();
  }

  /**
   * Asks each newcomer's browser to solve a proof-of-work puzzle before a ticket is issued: 0 (the
   * default) is off; {@code difficultyBits} (1 to 30) sets ALTCHA's {@code maxnumber} to {@code
   * 2^difficultyBits}, about {@code 2^(difficultyBits-1)} SHA-256 hashes on average. May be changed
   * while serving (say, higher while the line is long); challenges already issued keep theirs. The
   * built-in challenge page solves it in a Web Worker and sends the solution in the {@code
   * room_altcha} cookie; a browser without JavaScript is told why it cannot join. Challenges are
   * served at {@code <status-path>/challenge} in the ALTCHA format, verified statelessly (HMAC with
   * a room secret, bound to the room and an expiry) and spent once (shared by every instance on a
   * Redis line). A visitor who already holds a ticket or a pass is never asked.
   */
  public void setJoinChallenge(int difficultyBits) {
    joinGuard.setJoinChallenge(difficultyBits);
  }

  public int joinChallenge() {
    return joinGuard.joinChallenge();
  }

  // ── Redis lost the room (u3-settings) ──
  /**
   * How often the line's shared store (Redis) was found to have lost the room's state, waiting
   * visitors' places with it (they join again as new arrivals); logged each time. 0 in memory.
   */
  public long stateLosses() {
    return line.stateLosses();
  }

  // ── end of Redis lost the room ──
  /** Arrivals refused a ticket by the join limit, since the room started. */
  public long joinsRefused() {
    return joinGuard.joinsRefused();
  }

  /**
   * Challenge solutions refused (malformed, forged, expired, wrong, or replayed), since the room
   * started; arrivals that sent none are not counted.
   */
  public long challengesRefused() {
    return joinGuard.challengesRefused();
  }

  JoinGuard joinGuard() {
    return joinGuard;
  }

  // ── Introspection ──────────────────────────────────────────────────────

  /** Requests being served now (in SESSIONS mode, those of active sessions). */
  public int inFlight() {
    return path.inFlight();
  }

  /**
   * How many times a callback the application gave the room (capacity controller, rate, client-key
   * or bypass function) threw on the request path since the room was built. Each throw is caught
   * there, so it costs the visitor nothing: the request carries on as if the callback had no
   * opinion (no capacity change, no price, an empty client key, not bypassed). The first, and then
   * at most one a minute, is logged.
   */
  public long callbackFailures() {
    return userCode.failures();
  }

  /** Shopping sessions holding a slot now. */
  public int activeSessions() {
    return sessions.active();
  }

  /** Clients told they may come in who have not yet claimed their slot. */
  public int outstandingOffers() {
    return (int) line.ready();
  }

  /** Tickets ahead of a newcomer: clients waiting with a position of 1 or more. */
  public long queueDepth() {
    return line.waiting();
  }

  /** Clients holding a ticket, including those told ready and not yet back. */
  public long liveQueueDepth() {
    return line.live();
  }

  /** In-flight requests ÷ capacity. */
  public double utilization() {
    return path.utilization();
  }

  /** {@link #utilization()} smoothed over about ten seconds. */
  public double utilizationSmoothed() {
    return path.utilizationSmoothed();
  }

  /** The first {@code limit} clients in line, in order, those told ready first. */
  public List<TicketInfo> queue(int limit) {
    return desk.queue(limit);
  }

  /** One client in line. */
  public Optional<TicketInfo> ticket(String token) {
    return desk.ticket(token);
  }

  /** Whether {@code passToken} is a VIP pass that has not expired. */
  public boolean hasValidPass(String passToken) {
    return desk.hasValidPass(passToken);
  }

  // ── A verifiable admission log ─────────────────────────────────────────

  /**
   * Records this room's admissions, and every event that legitimately changes who is next, in
   * {@code log} (see {@link AdmissionLog}); once per room. A room that already holds tickets (after
   * an import, say) starts the log from a checkpoint of its line. Closing the room closes the log.
   * On a line that cannot journal (Redis) the log records what this instance saw.
   *
   * @throws IllegalStateException when the room already has a log
   */
  public void setAdmissionLog(AdmissionLog log) {
    audit.attach(log, line, events, settings.name, clock, sale);
  }

  /** The room's admission log, or {@code null} (the default: none). */
  public AdmissionLog admissionLog() {
    return audit.log();
  }

  // ── Line management ────────────────────────────────────────────────────

  /**
   * Removes one client from line; everyone behind moves up. Returns false when it was already gone
   * or already admitted. Its next poll reports ready, so enforce bans upstream of the room.
   */
  public boolean removeToken(String token) {
    return desk.removeToken(token);
  }

  /** Removes every client that {@code match} selects; returns how many. */
  public int removeTokensIf(Predicate<TicketInfo> match) {
    return desk.removeTokensIf(match);
  }

  /** Moves a client to {@code targetPosition} for free (an operator's "move to front"). */
  public void adminPromote(String token, long targetPosition) {
    desk.adminPromote(token, targetPosition);
  }

  /**
   * Ranks a client: it waits ahead of every lower rank and behind every client already holding an
   * equal or higher rank (so equal ranks keep the order in which they were ranked). The rank is
   * recorded first; the client then passes every client whose recorded rank is lower, up to the
   * nearest one ahead holding an equal or higher rank, and stops behind that one's whole tie.
   * Lowering a rank never moves the client back, but later rank moves compare with the new rank:
   * rank D at 3, lower it to 0, and a client ranked 1 passes D.
   *
   * @return true when the client passed someone (or left a tie to stand ahead of its lower-ranked
   *     tie-mates); then {@link Event#RANK} fires. False for the first in line, or when the client
   *     ahead holds an equal or higher rank.
   */
  public boolean setTicketRank(String token, int rank) {
    return desk.setTicketRank(token, rank);
  }

  /**
   * One reaper pass now: reclaims expired tickets ({@link Event#EVICT}) and passes lapsed offers on
   * ({@link Event#TIMEOUT} for those whose client had been told; those tickets keep their place).
   * Returns the number of tickets reclaimed.
   */
  public int evictExpired() {
    return path.evictExpired();
  }

  /** Ends a shopping session (its slot goes to the next in line); false when already ended. */
  public boolean endSession(String sessionId) {
    return sessionId != null && sessions.endById(sessionId, "ended");
  }

  /**
   * Starts a new sale generation: ends every session and invalidates every grant issued before.
   * Returns the new generation.
   */
  public long newSaleGeneration() {
    long g = sessions.newGeneration();
    events.drained();
    return g;
  }

  public long saleGeneration() {
    return sessions.generation();
  }

  // ── Skip the line ──────────────────────────────────────────────────────

  /** What moving to {@code targetPosition} would cost now; moves nothing. */
  public BigDecimal quoteCost(String token, long targetPosition) {
    return desk.quoteCost(token, targetPosition);
  }

  /** Moves a client to {@code targetPosition} after payment; see {@link PromoteResult}. */
  public PromoteResult promoteToken(String token, long targetPosition) {
    return desk.promoteToken(token, targetPosition);
  }

  public PromoteResult promoteTokenToFront(String token) {
    return promoteToken(token, 1);
  }

  /** Issues a VIP pass valid for {@link #passDuration()}; {@code ""} when passes are off. */
  public String grantPass() {
    return desk.grantPass();
  }

  // ── Persistence ──────────────────────────────────────────────────────

  /**
   * Writes the line (tickets in order, with tokens, ranks, promotions, client keys and timestamps,
   * and the VIP passes with their expiry) as versioned JSON. The output holds bearer tokens: write
   * it to a file only its owner can read. Export after the server has stopped serving for an exact
   * snapshot.
   */
  public void exportTo(OutputStream out) throws IOException {
    transfer.exportTo(out);
  }

  /**
   * Restores a line written by {@link #exportTo}, all or nothing, before the room serves traffic.
   * Call the setters first: tickets that had expired under this room's TTL and first-poll grace
   * when they were exported are dropped. The downtime is not charged against anyone (their TTL and
   * grace restart now), passes keep their real expiry, each client's cookies are re-sent on its
   * first poll, and the first {@code capacity} clients in line are ready at once (nothing is in
   * flight): each is ready on its first poll. Every restored client is away until it polls; one
   * that has not polled within the first-poll grace (30 s when the grace is off) passes its turn to
   * the next client in line who has, but keeps its place.
   *
   * @throws IllegalStateException when the room has already served traffic, granted a pass or
   *     imported a line
   * @throws ImportFormatException when the input is malformed, truncated or of an unknown version;
   *     the room is then left exactly as it was
   */
  public ImportStats importFrom(InputStream in) throws IOException {
    return transfer.importFrom(in);
  }

  // ── Events ─────────────────────────────────────────────────────────────

  /**
   * Adds a handler for {@code event}. An event may have any number of handlers (a metrics binder
   * and the application's own, say); they run in the order added, on the room's event thread, off
   * the request path. A slow or throwing handler never blocks or breaks admission.
   */
  public void on(Event event, Consumer<Snapshot> handler) {
    events
        .bus()
        .on(Objects.requireNonNull(event, "event"), Objects.requireNonNull(handler, "handler"));
  }

  /** Removes every handler for {@code event}, including those a metrics binder added. */
  public void off(Event event) {
    events.bus().off(event);
  }

  /**
   * Stops the reaper and event delivery, waits (a few seconds at most) for a pass or handler still
   * running so no thread the room started outlives it, then closes the line.
   */
  @Override
  public void close() {
    reaper.close();
    events.bus().close();
    line.close();
    audit.close();
  }

  // ── The request path, for the filter ───────────────────────────────────

  InstantSource clock() {
    return clock;
  }

  Line line() {
    return line;
  }

  Policy policy() {
    return path.policy();
  }

  Web web() {
    return web;
  }

  Sessions sessions() {
    return sessions;
  }

  UserCode userCode() {
    return userCode;
  }

  /** The status path a filter serves when it was not given one. */
  String defaultStatusPath() {
    String n = settings.name;
    return n.isEmpty() ? WaitingRoomFilter.DEFAULT_STATUS_PATH : "/queue/" + n + "/status";
  }

  EventBus events() {
    return events.bus();
  }

  Sale sale() {
    return sale;
  }

  /** The room's name for logs. */
  String displayName() {
    return settings.displayName();
  }

  /** Fast path: a slot with nobody waiting. */
  boolean tryEnter() {
    return path.tryEnter();
  }

  void entered() {
    path.entered();
  }

  // origin (issue 16)
  /** The held status requests of the head of the line. */
  HeadOfLine headOfLine() {
    return path.head();
  }

  /** Gives a request's slot back. */
  void exit() {
    path.exit();
  }

  /**
   * A gated request that started at {@code startedAt} (room clock) finished, {@code failed} or not:
   * a health sample for the capacity controller. Called before its slot is given back.
   */
  void sampled(long startedAt, boolean failed) {
    path.sampled(startedAt, failed);
  }

  /** Gives one held slot back, by a request or a session. */
  void exitSlot() {
    path.exitSlot();
  }

  /** A session's slot came back through its store. */
  private void slotReturned(long now) {
    path.slotReturned(now);
  }

  /** A status poll, with the events it implies. */
  long poll(long hi, long lo, long now) {
    return poll(hi, lo, "", now);
  }

  long poll(long hi, long lo, String token, long now) {
    return path.poll(hi, lo, token, now);
  }

  /** A returning ticket holder: admitted if ready, else where it stands. */
  long claim(long hi, long lo, long now) {
    return path.claim(hi, lo, now);
  }

  /**
   * A newcomer the fast path could not admit (an identity of null: anonymous); {@code token} is a
   * fresh random token, which the line may finish: the client gets it as it is after the call.
   */
  long arrive(long[] token, String identity, String clientKey, boolean pass, boolean stale) {
    return path.arrive(token, true, identity, clientKey, pass, stale);
  }

  /** A newcomer under a token the line stores as it is ({@code token}, its hex form). */
  long arrive(long hi, long lo, String token, String clientKey, boolean pass, boolean stale) {
    return arrive(hi, lo, token, null, clientKey, pass, stale);
  }

  /** A newcomer with an identity (null: anonymous) under a token the line stores as it is. */
  long arrive(
      long hi,
      long lo,
      String token,
      String identity,
      String clientKey,
      boolean pass,
      boolean stale) {
    return path.arrive(new long[] {hi, lo}, false, identity, clientKey, pass, stale);
  }

  /** A client in line came in while the gate was off: its place is no longer needed. */
  void passedThrough(long hi, long lo) {
    path.passedThrough(hi, lo);
  }

  /** Fires EVICT for an outcome that retired a ticket, TIMEOUT for one whose offer lapsed. */
  void retired(long outcome) {
    events.retired(outcome);
  }

  void fire(Event e, String token, String clientKey, boolean stale) {
    fire(e, token, clientKey, stale, "");
  }

  void fire(Event e, String token, String clientKey, boolean stale, String detail) {
    events.fire(e, token, clientKey, stale, detail);
  }

  // ── Internals ──────────────────────────────────────────────────────────

  /** How often the reaper runs: its interval, but at least as often as offers and grace expire. */
  long reaperCadenceMillis() {
    return settings.reaperCadenceMillis();
  }

  /** The HTTP-facing settings, read by the filter on every request. */
  static final class Web {
    volatile boolean secureCookie;
    volatile String cookiePath; // null: never set, so the request's context path
    volatile String cookieDomain = "";
    volatile Function<HttpServletRequest, String> clientKeyFunction;
    volatile Function<HttpServletRequest, String> identityFunction; // a fair line: identity
    volatile RateFunction rateFunction;
    volatile String skipUrl = "";
    volatile Currency currency;
    volatile boolean linePersisted;
    volatile WaitingPage page = WaitingPage.DEFAULT;
    volatile String cookieSuffix = "";
  }

  /**
   * Builds a {@link WaitingRoom}. Methods are the room's setters without {@code set}, plus {@link
   * #clock} and {@link #line}.
   */
  public static final class Builder {
    private int capacity;
    private InstantSource clock = InstantSource.system();
    private Line line;
    private Reaper.Timer reaperTimer;
    private AdmissionLog admissionLog;
    private final java.util.ArrayList<Consumer<WaitingRoom>> settings = new java.util.ArrayList<>();

    private Builder() {}

    public Builder capacity(int capacity) {
      this.capacity = Checks.capacity(capacity);
      return this;
    }

    /** The source of every time-dependent decision; tests pass a fake. */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Runs the reaper's passes by hand instead of on its own thread; for tests. */
    Builder reaperTimer(Reaper.Timer timer) {
      this.reaperTimer = Objects.requireNonNull(timer, "timer");
      return this;
    }

    /** Where the line lives; the default is in this process's memory. */
    public Builder line(Line line) {
      this.line = Objects.requireNonNull(line, "line");
      return this;
    }

    public Builder tokenTtl(Duration d) {
      RoomSettings.tokenTtl(d);
      return add(r -> r.setTokenTtl(d));
    }

    public Builder reaperInterval(Duration d) {
      RoomSettings.reaperInterval(d);
      return add(r -> r.setReaperInterval(d));
    }

    public Builder firstPollGrace(Duration d) {
      RoomSettings.firstPollGrace(d);
      return add(r -> r.setFirstPollGrace(d));
    }

    public Builder offerTimeout(Duration d) {
      RoomSettings.offerTimeout(d);
      return add(r -> r.setOfferTimeout(d));
    }

    public Builder maxQueueDepth(long max) {
      RoomSettings.maxQueueDepth(max);
      return add(r -> r.setMaxQueueDepth(max));
    }

    public Builder queueFullStatus(int status) {
      RoomSettings.queueFullStatus(status);
      return add(r -> r.setQueueFullStatus(status));
    }

    public Builder secureCookie(boolean secure) {
      return add(r -> r.setSecureCookie(secure));
    }

    public Builder cookiePath(String path) {
      RoomSettings.cookiePath(path);
      return add(r -> r.setCookiePath(path));
    }

    public Builder cookieDomain(String domain) {
      return add(r -> r.setCookieDomain(domain));
    }

    public Builder clientKeyFunction(Function<HttpServletRequest, String> fn) {
      return add(r -> r.setClientKeyFunction(fn));
    }

    public Builder rateFunction(RateFunction fn) {
      return add(r -> r.setRateFunction(fn));
    }

    public Builder skipUrl(String url) {
      return add(r -> r.setSkipUrl(url));
    }

    public Builder currency(Currency currency) {
      return add(r -> r.setCurrency(currency));
    }

    public Builder linePersisted(boolean persisted) {
      return add(r -> r.setLinePersisted(persisted));
    }

    public Builder passDuration(Duration d) {
      RoomSettings.passDuration(d);
      return add(r -> r.setPassDuration(d));
    }

    public Builder html(String html) {
      return add(r -> r.setHtml(html));
    }

    public Builder name(String name) {
      return add(r -> r.setName(name));
    }

    public Builder admissionMode(AdmissionMode mode) {
      Objects.requireNonNull(mode, "mode");
      return add(r -> r.setAdmissionMode(mode));
    }

    public Builder sessionDuration(Duration d) {
      Sessions.checkDuration("sessionDuration", d, Sessions.DEFAULT_DURATION);
      return add(r -> r.setSessionDuration(d));
    }

    public Builder sessionMaxDuration(Duration d) {
      Sessions.checkDuration("sessionMaxDuration", d, Sessions.DEFAULT_MAX_DURATION);
      return add(r -> r.setSessionMaxDuration(d));
    }

    public Builder signingKey(String keyId, byte[] secret) {
      byte[] copy = secret == null ? null : secret.clone();
      return add(r -> r.setSigningKey(keyId, copy));
    }

    public Builder mode(RoomMode mode) {
      Objects.requireNonNull(mode, "mode");
      return add(r -> r.setMode(mode));
    }

    public Builder announcement(String text) {
      return add(r -> r.setAnnouncement(text));
    }

    public Builder admissionRate(double perSecond) {
      return add(r -> r.setAdmissionRate(perSecond));
    }

    public Builder schedulePresale(Instant opensAt) {
      return add(r -> r.schedulePresale(opensAt));
    }

    public Builder capacityController(CapacityController controller) {
      return add(r -> r.setCapacityController(controller));
    }

    // a fair line: identity
    public Builder identityFunction(Function<HttpServletRequest, String> fn) {
      return add(r -> r.setIdentityFunction(fn));
    }

    // join guard (r3-guard)
    public Builder joinLimit(int perMinute) {
      JoinGuard.joinLimit(perMinute);
      return add(r -> r.setJoinLimit(perMinute));
    }

    public Builder joinChallenge(int difficultyBits) {
      JoinGuard.joinChallenge(difficultyBits);
      return add(r -> r.setJoinChallenge(difficultyBits));
    }

    /** The admission log, attached after every other setting (so its genesis names the room). */
    public Builder admissionLog(AdmissionLog log) {
      this.admissionLog = Objects.requireNonNull(log, "log");
      return this;
    }

    /** Builds the room; it starts its reaper and event threads. */
    public WaitingRoom build() {
      if (capacity == 0 && line == null) {
        throw new IllegalArgumentException("capacity must be set (at least 1)");
      }
      return new WaitingRoom(this);
    }

    private Builder add(Consumer<WaitingRoom> setting) {
      settings.add(setting);
      return this;
    }

    private void apply(WaitingRoom room) {
      settings.forEach(s -> s.accept(room));
    }
  }
}
