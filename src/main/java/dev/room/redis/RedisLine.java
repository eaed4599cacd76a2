package dev.room.redis;

import dev.room.spi.Line;
import dev.room.spi.LineUnavailableException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;

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
 * <p>Implementation notes. {@code LineParts} wires the parts from the {@code LineSettings} a {@link
 * Builder} gathers, and this class's package-private superclass {@code DelegatingLine} hands the
 * {@code Line} methods each to one of them: {@code LineScripts} runs the scripts and keeps the
 * counters their replies carry; {@code SharedLimits} holds the capacity and allowance; {@code
 * Admissions} is the request path, its slots held under the {@code InstanceLease}; {@code
 * LineManagement} does the reads, removals, moves and the reaper pass; {@code LineArchive} export
 * and restore; {@code PassBook} the passes; {@code Beats} is one heartbeat, which {@code Heartbeat}
 * schedules, and {@code Recovery} what it puts right after an outage or a loss of Redis state;
 * {@code RedisControls}, {@code RedisJoinLedger} and {@code RedisSessionStore} are the room's
 * shared sale controls, join ledger and sessions.
 */
public final class RedisLine extends DelegatingLine implements Line {
  /** The default time a dead instance's slots stay held before they return to the line. */
  public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);

  /** The default time to wait for Redis to answer one command. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private RedisLine(Builder b) {
    super(new LineParts(b.settings));
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

  /** Whether this instance is connected to Redis now; for readiness probes. */
  public boolean connected() {
    return parts.link.connected();
  }

  /** Stops the heartbeat and ends this instance's lease; slots it still holds return at once. */
  @Override
  public void close() {
    parts.close();
  }

  /**
   * How often this instance found that Redis had lost the room's state (a restart without
   * persistence); the line was lost each time, the capacity and running requests re-established.
   */
  @Override
  public long stateLosses() {
    return parts.recovery.losses();
  }

  /** Tickets of clients let in while Redis was down (fail-open), retired once it returned. */
  public long ghostsRetired() {
    return parts.recovery.retired();
  }

  // ── For tests ──────────────────────────────────────────────────────────

  /** One heartbeat ({@link Beats#beat()}); tests call it to drive leases by hand. */
  RedisLink.State beat() {
    return parts.beats.beat();
  }

  /** Severs the connection without releasing anything, as a crashed instance would; for tests. */
  void crash() {
    parts.crash();
  }

  InstanceLease lease() {
    return parts.lease;
  }

  /** The copy of heads batched polls rank with; null when polls go one script each. */
  HeadsMirror heads() {
    return parts.heads;
  }

  RedisLink link() {
    return parts.link;
  }

  /**
   * Checks the storage invariants in Redis; for tests, at quiescent points.
   *
   * @throws IllegalStateException naming every invariant that does not hold
   */
  void checkInvariants() {
    parts.scripts.checkInvariants();
  }

  /** Builds a {@link RedisLine}. */
  public static final class Builder {
    private final LineSettings settings;

    private Builder(String redisUri, String roomId) {
      this.settings = new LineSettings(redisUri, roomId);
    }

    /**
     * How long the slots of an instance that stopped heartbeating stay held before they return
     * (default 15 s; 3 s – 10 min). The heartbeat runs every third of it.
     */
    public Builder leaseTtl(Duration ttl) {
      settings.leaseTtl =
          LineSettings.range("leaseTtl", ttl, Duration.ofSeconds(3), Duration.ofMinutes(10));
      return this;
    }

    /**
     * Whether to let every request in while Redis is unreachable (default false: nobody is let in
     * past the gate). Failing open keeps the site up at the price of the protection the room exists
     * for.
     */
    public Builder failOpen(boolean failOpen) {
      settings.failOpen = failOpen;
      return this;
    }

    /** How long to wait for Redis to answer one command (default 2 s; 50 ms – 60 s). */
    public Builder commandTimeout(Duration timeout) {
      settings.commandTimeout =
          LineSettings.range(
              "commandTimeout", timeout, Duration.ofMillis(50), Duration.ofSeconds(60));
      return this;
    }

    /** The clock for lease times; give it the room's clock when that is not the system's. */
    public Builder clock(InstantSource clock) {
      settings.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The name this instance's leases carry in Redis, for operators (default host/pid). */
    public Builder instanceName(String name) {
      settings.instanceName = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Whether {@code redisUri} names a Redis Cluster (default false: a URI with several hosts, as
     * {@code redis://h1:7000,h2:7001,h3:7002}, names one anyway, its hosts being seeds). A room's
     * keys share one hash tag, so a room lives on one shard and rooms spread over the shards.
     */
    public Builder cluster(boolean cluster) {
      settings.cluster = cluster;
      return this;
    }

    // redis poll (u7-redispoll)
    /**
     * Whether status polls that wait for Redis together go as one script (default true): a busy
     * room's polls then share a round trip and most of Redis's cost. {@code false} sends each poll
     * as its own script, as before; benchmarks measure the two side by side.
     */
    public Builder batchPolls(boolean batchPolls) {
      settings.batchPolls = batchPolls;
      return this;
    }

    // end redis poll

    /** For tests that drive every heartbeat by hand ({@link RedisLine#beat()}). */
    Builder manualHeartbeat() {
      settings.backgroundHeartbeat = false;
      return this;
    }

    /**
     * Connects (or, while Redis is down, keeps trying in the background) and starts the heartbeat.
     */
    public RedisLine build() {
      return new RedisLine(this);
    }
  }
}
