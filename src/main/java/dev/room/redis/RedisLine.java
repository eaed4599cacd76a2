package dev.room.redis;

import dev.room.TicketInfo;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Controls;
import dev.room.spi.Identities;
import dev.room.spi.JoinLedger;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Move;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.SessionStore;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
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
 */
public final class RedisLine implements Line {
  /** The default time a dead instance's slots stay held before they return to the line. */
  public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);

  /** The default time to wait for Redis to answer one command. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private static final Logger LOG = LoggerFactory.getLogger(RedisLine.class);
  private static final int CHUNK = 512;
  private static final int EVICT_STEP = 1000;

  private final String roomId;
  private final RoomKeys keys;
  private final RedisLink link;
  private final InstanceLease lease;
  private final InstantSource clock;
  private final boolean failOpen;
  private final long leaseTtl;
  private final Heartbeat heartbeat;
  private final PassBook passes;
  private final Recovery recovery;
  private final RedisControls controls;
  private final RedisSessionStore sessions;
  private final AtomicInteger pendingCapacity = new AtomicInteger(-1);
  private volatile boolean needResume;

  // The counters as of the last reply from Redis.
  private volatile int capacity;
  private volatile int knownCapacity; // the last capacity Redis held, re-sent if Redis loses it
  private volatile int inFlight;
  private volatile long ready;
  private volatile long waiting;
  private volatile boolean used;
  private volatile long allowance = UNLIMITED;
  // What this instance last told Redis of the hold and the allowance, re-sent if Redis loses them
  private volatile boolean heldHere;
  private volatile boolean limitedHere;

  private RedisLine(Builder b) {
    this.roomId = b.roomId;
    this.keys = new RoomKeys(b.roomId);
    this.clock = b.clock;
    this.failOpen = b.failOpen;
    this.leaseTtl = b.leaseTtl.toMillis();
    this.link = new RedisLink(b.redisUri, b.cluster, b.commandTimeout);
    this.lease = new InstanceLease(link, keys, b.instanceName, leaseTtl);
    this.passes = new PassBook(link, keys, failOpen);
    this.recovery = new Recovery(roomId);
    this.controls = new RedisControls(link, keys);
    this.sessions = new RedisSessionStore(this, keys, link, clock);
    this.heartbeat =
        new Heartbeat(roomId, leaseTtl / 3, failOpen, this::beat, b.backgroundHeartbeat);
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
    return new RedisJoinLedger(link, keys);
  }

  /** Whether this instance is connected to Redis now; for readiness probes. */
  public boolean connected() {
    return link.connected();
  }

  // ── Counters ───────────────────────────────────────────────────────────

  @Override
  public int capacity() {
    int pending = pendingCapacity.get();
    return pending >= 0 ? pending : capacity;
  }

  /** Sets the global capacity; while Redis is down the change is kept and applied on return. */
  @Override
  public void setCapacity(int capacity, long now) {
    pendingCapacity.set(capacity);
    try {
      track(eval(Op.CAPACITY, Integer.toString(capacity), Long.toString(now)));
      pendingCapacity.compareAndSet(capacity, -1);
    } catch (LineUnavailableException e) {
      LOG.warn(
          "room {}: Redis is unreachable; capacity {} applies when it returns", roomId, capacity);
    }
  }

  @Override
  public int inFlight() {
    return inFlight;
  }

  @Override
  public int freeSlots() {
    return (int) (capacity() - inFlight - ready);
  }

  @Override
  public long waiting() {
    refresh();
    return waiting;
  }

  @Override
  public long ready() {
    refresh();
    return ready;
  }

  @Override
  public long live() {
    refresh();
    return waiting + ready;
  }

  @Override
  public boolean used() {
    refresh();
    return used;
  }

  /** The allowance is shared by every instance on this line: a hold set by one holds them all. */
  @Override
  public long allowance() {
    refresh();
    return allowance;
  }

  @Override
  public void setAllowance(long allowance, long now) {
    if (allowance < 0) {
      throw new IllegalArgumentException("allowance must not be negative, was " + allowance);
    }
    String n = allowance == UNLIMITED ? "inf" : Long.toString(allowance);
    limitedHere = allowance != UNLIMITED;
    track(eval(Op.ALLOWANCE, "set", n, "0", Long.toString(now)));
  }

  @Override
  public long replaceAllowance(long allowance, long now) {
    if (allowance < 0) {
      throw new IllegalArgumentException("allowance must not be negative, was " + allowance);
    }
    String n = allowance == UNLIMITED ? "inf" : Long.toString(allowance);
    limitedHere = allowance != UNLIMITED;
    List<Object> r = eval(Op.ALLOWANCE, "set", n, "0", Long.toString(now));
    track(r);
    long was = Replies.code(r);
    return was < 0 ? UNLIMITED : was;
  }

  @Override
  public void addAllowance(long n, long max, long now) {
    track(eval(Op.ALLOWANCE, "add", Long.toString(n), Long.toString(max), Long.toString(now)));
  }

  /** Holds the shared line for every instance: a refill by any of them adds nothing meanwhile. */
  @Override
  public void hold(boolean held, long now) {
    heldHere = held;
    track(eval(Op.ALLOWANCE, held ? "hold" : "free", "0", "0", Long.toString(now)));
  }

  /** The sale controls in Redis: every instance on this room id shares them. */
  @Override
  public Controls controls() {
    return controls;
  }

  /**
   * Runs the draw in one script. The group's size is read by the script itself, so {@code order}
   * may be asked again when the group changed between the two calls.
   */
  @Override
  public int drawPresale(IntFunction<int[]> order, long now) {
    int size = (int) Replies.code(eval(Op.DRAW));
    while (size > 0) {
      int[] drawn = order.apply(size);
      boolean[] seen = new boolean[size];
      if (drawn == null || drawn.length != size) {
        throw new IllegalArgumentException("the draw must order exactly " + size + " arrivals");
      }
      String[] args = new String[size];
      for (int i = 0; i < size; i++) {
        int a = drawn[i];
        if (a < 0 || a >= size || seen[a]) {
          throw new IllegalArgumentException("the draw is not a permutation");
        }
        seen[a] = true;
        args[i] = Integer.toString(a);
      }
      int group = (int) Replies.code(eval(Op.DRAW, args));
      if (group == size) {
        return size;
      }
      size = group;
    }
    return 0;
  }

  // ── The request path ───────────────────────────────────────────────────

  @Override
  public boolean tryEnter() {
    long now = clock.millis();
    String time = Long.toString(now);
    try {
      List<Object> r = lease.admit(gen -> eval(Op.ENTER, gen, time), 1, now);
      track(r);
      return Replies.code(r) == 1;
    } catch (LineUnavailableException e) {
      if (failOpen) {
        lease.admitUnbacked();
        return true;
      }
      throw e;
    }
  }

  @Override
  public void exit(long now) {
    List<Object> r = lease.release(now);
    if (r != null) {
      track(r);
    }
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    String token = Tokens.format(hi, lo);
    String key = clientKey == null ? "" : clientKey;
    String time = Long.toString(now);
    String depth = Long.toString(p.maxQueueDepth());
    try {
      List<Object> r =
          lease.admit(
              gen -> eval(Op.ARRIVE, gen, token, key, toFront ? "1" : "0", time, depth),
              Outcome.ADMITTED,
              now);
      track(r);
      return Replies.outcome(r);
    } catch (LineUnavailableException e) {
      return failOpenAdmission(e);
    }
  }

  // identity (one place per person): the rule is in ops/arrive.lua and lib/identity.lua
  @Override
  public long arrive(
      long hi, long lo, String identity, String clientKey, boolean toFront, long now, Policy p) {
    if (Identities.anonymous(identity)) {
      return arrive(hi, lo, clientKey, toFront, now, p);
    }
    String[] args = {
      "",
      Tokens.format(hi, lo),
      clientKey == null ? "" : clientKey,
      toFront ? "1" : "0",
      Long.toString(now),
      Long.toString(p.maxQueueDepth()),
      Identities.prehash(identity),
      Identities.newSalt(), // used only by the room's first identified arrival
      Long.toString(p.ttl()),
      Long.toString(p.firstPollGrace()),
      Long.toString(p.readyTimeout())
    };
    try {
      List<Object> r =
          lease.admit(
              gen -> {
                String[] a = args.clone();
                a[0] = gen;
                return eval(Op.ARRIVE, a);
              },
              Outcome.ADMITTED,
              now);
      track(r);
      return Replies.outcome(r);
    } catch (LineUnavailableException e) {
      return failOpenAdmission(e);
    }
  }

  @Override
  public String identitySalt() {
    List<Object> r = eval(Op.SALT);
    return r.isEmpty() ? null : (String) r.get(0);
  }

  @Override
  public int restore(
      Iterator<LineEntry> tickets, Iterator<long[]> passList, String identitySalt, long now) {
    if (identitySalt != null && !Identities.validSalt(identitySalt)) {
      throw new IllegalArgumentException("identity salt must be 32 lowercase hex digits");
    }
    return restoreWith(tickets, passList, identitySalt, now);
  }

  // end identity

  @Override
  public long poll(long hi, long lo, long now, Policy p) {
    try {
      return Replies.outcome(
          eval(
              Op.POLL,
              Tokens.format(hi, lo),
              Long.toString(now),
              Long.toString(p.ttl()),
              Long.toString(p.firstPollGrace()),
              Long.toString(p.pollInterval()),
              Long.toString(p.cookieRefresh()),
              Long.toString(p.readyTimeout())));
    } catch (LineUnavailableException e) {
      if (failOpen) {
        return Outcome.of(Outcome.READY, 0, 0);
      }
      throw e;
    }
  }

  @Override
  public long claim(long hi, long lo, long now, Policy p) {
    String token = Tokens.format(hi, lo);
    String time = Long.toString(now);
    String ttl = Long.toString(p.ttl());
    String grace = Long.toString(p.firstPollGrace());
    String offer = Long.toString(p.readyTimeout());
    String interval = Long.toString(p.pollInterval());
    try {
      List<Object> r =
          lease.admit(
              gen -> eval(Op.CLAIM, gen, token, time, ttl, grace, offer, interval),
              Outcome.ADMITTED,
              now);
      track(r);
      return Replies.outcome(r);
    } catch (LineUnavailableException e) {
      long o = failOpenAdmission(e);
      recovery.letIn(token); // its ticket must not stay at the front once Redis returns
      return o;
    }
  }

  // ── Line management ────────────────────────────────────────────────────

  @Override
  public boolean remove(long hi, long lo, long now) {
    List<Object> r = eval(Op.REMOVE, Long.toString(now), Tokens.format(hi, lo), "-1");
    track(r);
    return Replies.code(r) == 1;
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    List<String> chosen = new ArrayList<>();
    LineScan.forEach(
        link,
        keys,
        Long.MAX_VALUE,
        CHUNK,
        row -> {
          if (match.test(row.info())) {
            chosen.add(row.token());
            chosen.add(Long.toString(row.number()));
          }
        });
    int removed = 0;
    for (int from = 0; from < chosen.size(); from += 2 * CHUNK) {
      List<String> args = new ArrayList<>();
      args.add(Long.toString(now));
      args.addAll(chosen.subList(from, Math.min(chosen.size(), from + 2 * CHUNK)));
      List<Object> r = eval(Op.REMOVE, args.toArray(new String[0]));
      track(r);
      removed += (int) Replies.code(r);
    }
    return removed;
  }

  @Override
  public Move promote(long hi, long lo, long target) {
    return move(hi, lo, target, "1");
  }

  @Override
  public Move quote(long hi, long lo, long target) {
    return move(hi, lo, target, "0");
  }

  @Override
  public boolean rank(long hi, long lo, int rank) {
    List<Object> r = eval(Op.RANK, Tokens.format(hi, lo), Integer.toString(rank));
    return Replies.checked(Replies.code(r)) == 1;
  }

  @Override
  public List<TicketInfo> queue(int limit) {
    List<TicketInfo> out = new ArrayList<>(Math.max(0, Math.min(limit, 1024)));
    if (limit > 0) {
      LineScan.forEach(link, keys, limit, CHUNK, row -> out.add(row.info()));
    }
    return out;
  }

  @Override
  public TicketInfo ticket(long hi, long lo) {
    List<Object> r = eval(Op.TICKET, Tokens.format(hi, lo));
    return r.isEmpty() ? null : LineScan.Row.of(r, 0).info();
  }

  /**
   * One reaper pass in bounded steps; lapsed leases are reaped too. Nothing while Redis is down.
   */
  @Override
  public int[] evict(long now, Policy p) {
    int[] total = new int[2];
    try {
      List<Object> r;
      do {
        r =
            eval(
                Op.EVICT,
                Long.toString(now),
                Long.toString(p.ttl()),
                Long.toString(p.firstPollGrace()),
                Long.toString(p.readyTimeout()),
                Integer.toString(EVICT_STEP));
        track(r);
        total[0] += (int) Replies.code(r);
        total[1] += (int) Replies.num(r, 1);
      } while (Replies.num(r, 2) == 1);
    } catch (LineUnavailableException e) {
      LOG.debug("room {}: eviction skipped, Redis is unreachable", roomId);
    }
    return total;
  }

  // ── Passes ─────────────────────────────────────────────────────────────

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    track(eval(Op.PASS, Tokens.format(hi, lo), Long.toString(expiresAt)));
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
    LineScan.forEach(link, keys, Long.MAX_VALUE, CHUNK, row -> tickets.accept(row.entry()));
    passes.export(passSink);
  }

  @Override
  public int restore(Iterator<LineEntry> tickets, Iterator<long[]> passList, long now) {
    return restoreWith(tickets, passList, null, now);
  }

  private int restoreWith(
      Iterator<LineEntry> tickets, Iterator<long[]> passList, String salt, long now) {
    if (used()) {
      throw new IllegalStateException("the line has already been used");
    }
    List<Object> r = new LineRestore(link, keys).run(tickets, passList, salt, now);
    track(r);
    if (Replies.code(r) < 0) {
      throw new IllegalStateException("the line has already been used");
    }
    return (int) Replies.code(r);
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

  // ── Heartbeat and recovery ─────────────────────────────────────────────

  /**
   * Connects if need be, then one heartbeat: after a reconnect, first the amnesty for the outage;
   * then the lease renewal and a pending capacity change. Tests call it to drive leases by hand.
   */
  RedisLink.State beat() {
    RedisLink.State state = link.connect();
    if (state == RedisLink.State.DOWN) {
      return state;
    }
    long now = clock.millis();
    if (state == RedisLink.State.RECONNECTED) {
      needResume = true;
    }
    if (needResume) {
      eval(Op.RESUME, Long.toString(now), Long.toString(leaseTtl));
      needResume = false;
    }
    track(lease.heartbeat(now));
    if (lease.takeLoss()) {
      recovery.lost(knownCapacity);
      // Before the capacity: a paused or rated line must not come back unlimited (a pause wins;
      // a limited allowance restarts empty and its rate refills it).
      if (heldHere) {
        track(eval(Op.ALLOWANCE, "hold", "0", "0", Long.toString(now)));
      } else if (limitedHere) {
        track(eval(Op.ALLOWANCE, "set", "0", "0", Long.toString(now)));
      }
      pendingCapacity.compareAndSet(-1, knownCapacity);
      track(lease.heartbeat(now)); // Redis counts the requests this instance still runs
    }
    if (recovery.pending()) {
      recovery.retire(batch -> (int) Replies.code(eval(Op.REMOVE, removals(now, batch))));
    }
    int pending = pendingCapacity.get();
    if (pending >= 0) {
      track(eval(Op.CAPACITY, Integer.toString(pending), Long.toString(now)));
      pendingCapacity.compareAndSet(pending, -1);
    }
    return state;
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
    try {
      return link.eval(op, keys.sessions(), args);
    } catch (LineUnavailableException e) {
      heartbeat.wake();
      throw e;
    }
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
    List<Object> broken = eval(Op.CHECK);
    if (!broken.isEmpty()) {
      throw new IllegalStateException("line invariants broken: " + broken);
    }
  }

  // ── Internals ──────────────────────────────────────────────────────────

  private List<Object> eval(Op op, String... args) {
    try {
      return link.eval(op, keys.all(), args);
    } catch (LineUnavailableException e) {
      heartbeat.wake();
      throw e;
    }
  }

  /** The arguments of a removal of {@code tokens}, whatever their ticket numbers. */
  private static String[] removals(long now, List<String> tokens) {
    String[] args = new String[1 + 2 * tokens.size()];
    args[0] = Long.toString(now);
    for (int i = 0; i < tokens.size(); i++) {
      args[1 + 2 * i] = tokens.get(i);
      args[2 + 2 * i] = "-1";
    }
    return args;
  }

  private long failOpenAdmission(LineUnavailableException e) {
    if (!failOpen) {
      throw e;
    }
    lease.admitUnbacked();
    return Outcome.of(Outcome.ADMITTED, 0, 0);
  }

  private void refresh() {
    if (link.connected()) {
      try {
        track(eval(Op.COUNTERS));
      } catch (LineUnavailableException e) {
        // the last values seen stand in
      }
    }
  }

  void track(List<Object> r) {
    capacity = (int) Replies.num(r, 3);
    if (capacity > 0) {
      knownCapacity = capacity;
    }
    inFlight = (int) Replies.num(r, 4);
    ready = Replies.num(r, 5);
    waiting = Replies.num(r, 6);
    used = Replies.num(r, 7) != 0;
    long a = Replies.num(r, 8);
    allowance = a < 0 ? UNLIMITED : a;
  }

  private Move move(long hi, long lo, long target, String really) {
    return Replies.move(eval(Op.PROMOTE, Tokens.format(hi, lo), Long.toString(target), really));
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
