package dev.room.redis;

import dev.room.TicketInfo;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Controls;
import dev.room.spi.JoinLedger;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Move;
import dev.room.spi.Policy;
import dev.room.spi.SessionStore;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A line kept in Redis, shared by every app instance that names the same Redis and room id: one
 * line, one global capacity.
 *
 * <pre>{@code
 * WaitingRoom room = WaitingRoom.builder()
 *     .capacity(500)
 *     .line(RedisLine.connect("redis://127.0.0.1:6379", "sale-2026"))
 *     .build();
 * }</pre>
 *
 * <p>Every state change is one Lua script run by EVALSHA, atomic in Redis, with the in-memory
 * line's rules; a status poll is one round trip. Each admitted slot is held under this instance's
 * lease, renewed by a heartbeat thread every third of the lease TTL: when an instance dies, its
 * slots return to the line once its lease lapses, and an instance that comes back after that is
 * fenced (its lease generation is refused) so it can neither admit nor release on stale state.
 *
 * <p>When Redis cannot be reached the line fails closed: nobody is admitted past the gate, status
 * polls and arrivals fail with {@link LineUnavailableException} (answered with 503), waiting
 * clients keep their place, and releases are reconciled when Redis returns, which the line notices
 * by itself. With {@link Builder#failOpen(boolean) failOpen(true)} every request is let in instead
 * while Redis is down. Reads of {@link #capacity()}, {@link #inFlight()} and {@link #freeSlots()}
 * return the values seen by this instance's last exchange with Redis; {@link #waiting()}, {@link
 * #ready()} and {@link #used()} ask Redis, and fall back to the last values seen while it is down.
 *
 * <p>Requires Lettuce ({@code io.lettuce:lettuce-core}) on the class path, and Redis 6.2 or later
 * with {@code maxmemory-policy noeviction}. See {@code docs/REDIS.md}.
 *
 * <p>Implementation notes. This class wires the parts and delegates each {@code Line} method to one
 * of them: {@code LineScripts} runs the scripts and keeps the counters their replies carry; {@code
 * SharedLimits} holds the capacity and allowance; {@code Admissions} is the request path, its slots
 * held under the {@code InstanceLease}; {@code LineManagement} does the reads, removals, moves and
 * the reaper pass; {@code LineArchive} export and restore; {@code PassBook} the passes; {@code
 * Beats} is one heartbeat, which {@code Heartbeat} schedules, and {@code Recovery} what it puts
 * right after an outage or a loss of Redis state; {@code RedisControls}, {@code RedisJoinLedger}
 * and {@code RedisSessionStore} are the room's shared sale controls, join ledger and sessions.
 */
public final class RedisLine implements Line {
  /** The default time a dead instance's slots stay held before they return to the line. */
  public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);

  /** The default time to wait for Redis to answer one command. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private static final Logger LOG = LoggerFactory.getLogger(RedisLine.class);

  private final String roomId;
  private final RedisLink link;
  private final InstanceLease lease;
  private final InstantSource clock;
  private final Heartbeat heartbeat;
  private final LineScripts scripts;
  private final SharedLimits limits;
  private final Admissions admissions;
  private final LineManagement management;
  private final LineArchive archive;
  private final PassBook passes;
  private final Recovery recovery;
  private final Beats beats;
  private final RedisControls controls;
  private final RedisSessionStore sessions;

  private RedisLine(Builder b) {
    RoomKeys keys = new RoomKeys(b.roomId);
    long leaseTtl = b.leaseTtl.toMillis();
    this.roomId = b.roomId;
    this.clock = b.clock;
    this.link = new RedisLink(b.redisUri, b.cluster, b.commandTimeout);
    this.lease = new InstanceLease(link, keys, b.instanceName, leaseTtl);
    this.scripts = new LineScripts(link, keys, this::wakeHeartbeat);
    this.limits = new SharedLimits(roomId, scripts);
    this.recovery = new Recovery(roomId);
    this.admissions = new Admissions(scripts, lease, recovery, clock, b.failOpen);
    this.management = new LineManagement(roomId, scripts);
    this.passes = new PassBook(link, keys, b.failOpen);
    this.archive = new LineArchive(scripts, passes);
    this.beats = new Beats(scripts, lease, limits, recovery, clock, leaseTtl);
    this.controls = new RedisControls(link, keys);
    this.sessions = new RedisSessionStore(this, keys, link, clock);
    this.heartbeat =
        new Heartbeat(roomId, leaseTtl / 3, b.failOpen, beats::beat, b.backgroundHeartbeat);
    heartbeat.start();
  }

  /** A line for room {@code roomId} on the Redis at {@code redisUri}, with default settings. */
  public static RedisLine connect(String redisUri, String roomId) {
    return builder(redisUri, roomId).build();
  }

  /**
   * Starts building a line for room {@code roomId} on the Redis at {@code redisUri}: {@code
   * redis://host:port[/db]} (one server), {@code
   * redis-sentinel://host:port[,host2:port2]/db#master} (the primary Sentinel names) or {@code
   * redis://h1:p1,h2:p2,...} (a Redis Cluster; see {@link Builder#cluster(boolean)}).
   */
  public static Builder builder(String redisUri, String roomId) {
    return new Builder(redisUri, roomId);
  }

  // join guard (r3-guard)
  /** Join limits, spent challenges and their secret, shared by every instance of the room. */
  @Override
  public JoinLedger joinLedger() {
    return new RedisJoinLedger(link, scripts.keys());
  }

  /** Whether this instance is connected to Redis now; for readiness probes. */
  public boolean connected() {
    return link.connected();
  }

  // ── Counters ───────────────────────────────────────────────────────────

  @Override
  public int capacity() {
    return limits.capacity();
  }

  /** Sets the global capacity; while Redis is down the change is kept and applied on return. */
  @Override
  public void setCapacity(int capacity, long now) {
    limits.setCapacity(capacity, now);
  }

  @Override
  public int inFlight() {
    return scripts.inFlight();
  }

  @Override
  public int freeSlots() {
    return limits.freeSlots();
  }

  @Override
  public long waiting() {
    return scripts.refresh().waiting();
  }

  @Override
  public long ready() {
    return scripts.refresh().ready();
  }

  @Override
  public long live() {
    scripts.refresh();
    return scripts.waiting() + scripts.ready();
  }

  @Override
  public boolean used() {
    return scripts.refresh().used();
  }

  /** The allowance is shared by every instance on this line: a hold set by one holds them all. */
  @Override
  public long allowance() {
    return scripts.refresh().allowance();
  }

  @Override
  public void setAllowance(long allowance, long now) {
    limits.setAllowance(allowance, now);
  }

  @Override
  public long replaceAllowance(long allowance, long now) {
    return limits.replaceAllowance(allowance, now);
  }

  @Override
  public void addAllowance(long n, long max, long now) {
    limits.addAllowance(n, max, now);
  }

  /** Holds the shared line for every instance: a refill by any of them adds nothing meanwhile. */
  @Override
  public void hold(boolean held, long now) {
    limits.hold(held, now);
  }

  // rate bucket (u1-rate)
  /** The rate bucket is in Redis, one for every instance on this room id (lib/bucket.lua). */
  @Override
  public long meter(double perSecond, long burst, long now) {
    return limits.meter(perSecond, burst, now);
  }

  @Override
  public long refill(long now) {
    return limits.refill(now);
  }

  // end rate bucket

  /** The sale controls in Redis: every instance on this room id shares them. */
  @Override
  public Controls controls() {
    return controls;
  }

  @Override
  public int drawPresale(IntFunction<int[]> order, long now) {
    return management.drawPresale(order);
  }

  // ── The request path ───────────────────────────────────────────────────

  @Override
  public boolean tryEnter() {
    return admissions.tryEnter();
  }

  @Override
  public void exit(long now) {
    admissions.exit(now);
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    return admissions.arrive(hi, lo, clientKey, toFront, now, p);
  }

  // identity (one place per person): the rule is in ops/arrive.lua and lib/identity.lua
  @Override
  public long arrive(
      long hi, long lo, String identity, String clientKey, boolean toFront, long now, Policy p) {
    return admissions.arrive(hi, lo, identity, clientKey, toFront, now, p);
  }

  @Override
  public boolean keepsIdentities() {
    return true;
  }

  @Override
  public String identitySalt() {
    return archive.identitySalt();
  }

  @Override
  public int restore(
      Iterator<LineEntry> tickets, Iterator<long[]> passList, String identitySalt, long now) {
    return archive.restore(tickets, passList, identitySalt, now);
  }

  // end identity

  @Override
  public long poll(long hi, long lo, long now, Policy p) {
    return admissions.poll(hi, lo, now, p);
  }

  @Override
  public long claim(long hi, long lo, long now, Policy p) {
    return admissions.claim(hi, lo, now, p);
  }

  // ── Line management ────────────────────────────────────────────────────

  @Override
  public boolean remove(long hi, long lo, long now) {
    return management.remove(hi, lo, now);
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    return management.removeIf(match, now);
  }

  @Override
  public Move promote(long hi, long lo, long target) {
    return management.move(hi, lo, target, true);
  }

  @Override
  public Move quote(long hi, long lo, long target) {
    return management.move(hi, lo, target, false);
  }

  @Override
  public boolean rank(long hi, long lo, int rank) {
    return management.rank(hi, lo, rank);
  }

  @Override
  public List<TicketInfo> queue(int limit) {
    return management.queue(limit);
  }

  @Override
  public TicketInfo ticket(long hi, long lo) {
    return management.ticket(hi, lo);
  }

  /**
   * One reaper pass in bounded steps; lapsed leases are reaped too. Nothing while Redis is down.
   */
  @Override
  public int[] evict(long now, Policy p) {
    return management.evict(now, p);
  }

  // ── Passes ─────────────────────────────────────────────────────────────

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    scripts.update(Op.PASS, Tokens.format(hi, lo), Long.toString(expiresAt));
  }

  @Override
  public long passExpiry(long hi, long lo) {
    return passes.expiry(hi, lo);
  }

  @Override
  public int sweepPasses(long now) {
    return passes.sweep(now);
  }

  // ── Export and import ──────────────────────────────────────────────────

  @Override
  public void export(Consumer<LineEntry> tickets, Consumer<long[]> passSink) {
    archive.export(tickets, passSink);
  }

  @Override
  public int restore(Iterator<LineEntry> tickets, Iterator<long[]> passList, long now) {
    return archive.restore(tickets, passList, now);
  }

  /** Stops the heartbeat and ends this instance's lease; slots it still holds return at once. */
  @Override
  public void close() {
    heartbeat.close();
    try {
      lease.leave(clock.millis());
    } catch (LineUnavailableException e) {
      LOG.debug("room {}: lease left to lapse, Redis is unreachable", roomId);
    }
    link.close();
  }

  /** A script found Redis unreachable: reconnect now rather than at the next beat. */
  private void wakeHeartbeat() {
    heartbeat.wake();
  }

  // ── For tests ──────────────────────────────────────────────────────────

  /** One heartbeat ({@link Beats#beat()}); tests call it to drive leases by hand. */
  RedisLink.State beat() {
    return beats.beat();
  }

  /**
   * How often this instance found that Redis had lost the room's state (a restart without
   * persistence); the line was lost each time, the capacity and running requests re-established.
   */
  public long stateLosses() {
    return recovery.losses();
  }

  /** Tickets of clients let in while Redis was down (fail-open), retired once it returned. */
  public long ghostsRetired() {
    return recovery.retired();
  }

  /** Severs the connection without releasing anything, as a crashed instance would; for tests. */
  void crash() {
    heartbeat.close();
    link.close();
  }

  InstanceLease lease() {
    return lease;
  }

  // ── Admission sessions ─────────────────────────────────────────────────

  /** The room's admission sessions, shared in Redis by every instance on this line. */
  @Override
  public Optional<SessionStore> sharedSessions() {
    return Optional.of(sessions);
  }

  /** Runs a session script (its keys: the room's, then the session store's). */
  List<Object> evalSessions(Op op, String... args) {
    return scripts.evalSessions(op, args);
  }

  /** Notes the counters a reply carries (a session script's too). */
  void track(List<Object> r) {
    scripts.track(r);
  }

  RedisLink link() {
    return link;
  }

  /**
   * Checks the storage invariants in Redis; for tests, at quiescent points.
   *
   * @throws IllegalStateException naming every invariant that does not hold
   */
  void checkInvariants() {
    scripts.checkInvariants();
  }

  /** Builds a {@link RedisLine}. */
  public static final class Builder {
    private final String redisUri;
    private final String roomId;
    private Duration leaseTtl = DEFAULT_LEASE_TTL;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private boolean failOpen;
    private InstantSource clock = InstantSource.system();
    private String instanceName = defaultInstanceName();
    private boolean backgroundHeartbeat = true;
    private boolean cluster;

    private Builder(String redisUri, String roomId) {
      this.redisUri = Objects.requireNonNull(redisUri, "redisUri");
      new RoomKeys(roomId); // validates
      this.roomId = roomId;
    }

    /**
     * How long the slots of an instance that stopped heartbeating stay held before they return
     * (default 15 s; 3 s – 10 min). The heartbeat runs every third of it.
     */
    public Builder leaseTtl(Duration ttl) {
      this.leaseTtl = range("leaseTtl", ttl, Duration.ofSeconds(3), Duration.ofMinutes(10));
      return this;
    }

    /**
     * Whether to let every request in while Redis is unreachable (default false: nobody is let in
     * past the gate). Failing open keeps the site up at the price of the protection the room exists
     * for.
     */
    public Builder failOpen(boolean failOpen) {
      this.failOpen = failOpen;
      return this;
    }

    /** How long to wait for Redis to answer one command (default 2 s; 50 ms – 60 s). */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout =
          range("commandTimeout", timeout, Duration.ofMillis(50), Duration.ofSeconds(60));
      return this;
    }

    /** The clock for lease times; give it the room's clock when that is not the system's. */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The name this instance's leases carry in Redis, for operators (default host/pid). */
    public Builder instanceName(String name) {
      this.instanceName = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Whether {@code redisUri} names a Redis Cluster (default false: a URI with several hosts, as
     * {@code redis://h1:7000,h2:7001,h3:7002}, names one anyway, its hosts being seeds). A room's
     * keys share one hash tag, so a room lives on one shard and rooms spread over the shards.
     */
    public Builder cluster(boolean cluster) {
      this.cluster = cluster;
      return this;
    }

    /** For tests that drive every heartbeat by hand ({@link RedisLine#beat()}). */
    Builder manualHeartbeat() {
      this.backgroundHeartbeat = false;
      return this;
    }

    /**
     * Connects (or, while Redis is down, keeps trying in the background) and starts the heartbeat.
     */
    public RedisLine build() {
      return new RedisLine(this);
    }

    private static Duration range(String name, Duration d, Duration min, Duration max) {
      Objects.requireNonNull(d, name);
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was " + d);
      }
      return d;
    }

    private static String defaultInstanceName() {
      String host = System.getenv("HOSTNAME");
      return (host == null || host.isEmpty() ? "instance" : host)
          + "/"
          + ProcessHandle.current().pid()
          + "/"
          + Integer.toHexString(ThreadLocalRandom.current().nextInt());
    }
  }
}
