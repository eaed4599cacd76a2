package dev.room.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.RedisClusterURIUtil;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.SocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Where a line's Redis is and how to reach it: one server, a primary watched by Sentinel ({@code
 * redis-sentinel://host:port[,host2:port2]/db#masterName}: Lettuce asks the sentinels for the
 * primary on every connect, so a reconnect after a failover finds the new one), or a Redis Cluster
 * ({@code redis://h1:p1,h2:p2,...}, or any URI with {@code cluster(true)}: the hosts are seeds, the
 * cluster's own topology routes each script to the shard of the room's hash tag).
 *
 * <p>All three hand out the same command type, {@link RedisClusterCommands}: the commands a line
 * uses (scripts, sorted sets, PING) that a standalone connection and a cluster connection both
 * have, so one code path serves every topology.
 */
final class RedisEndpoint implements AutoCloseable {
  /** The deployment a URI names. */
  enum Topology {
    STANDALONE,
    SENTINEL,
    CLUSTER
  }

  /**
   * One connection and its synchronous commands; {@code primary} is where Sentinel said the primary
   * was just before it opened (null for the other topologies, or when no sentinel answered).
   */
  record Connection(
      StatefulConnection<String, String> stateful,
      RedisClusterCommands<String, String> sync,
      SocketAddress primary) {}

  private final Topology topology;
  private final RedisClient client; // standalone and Sentinel
  private final RedisClusterClient clusterClient;
  private final RedisURI sentinelUri;
  private StatefulRedisSentinelConnection<String, String> sentinel; // guarded by the caller

  private RedisEndpoint(
      Topology topology, RedisClient client, RedisClusterClient clusterClient, RedisURI uri) {
    this.topology = topology;
    this.client = client;
    this.clusterClient = clusterClient;
    this.sentinelUri = topology == Topology.SENTINEL ? uri : null;
  }

  /**
   * The endpoint {@code redisUri} names; a URI with several hosts (or {@code cluster}) is a Redis
   * Cluster.
   *
   * @throws IllegalArgumentException when the URI is not a Redis URI, or names a cluster with a
   *     database other than 0 or through Sentinel
   */
  static RedisEndpoint of(String redisUri, boolean cluster, Duration commandTimeout) {
    RedisURI uri;
    try {
      uri = RedisURI.create(redisUri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("redisUri is not a Redis URI: " + e.getMessage(), e);
    }
    boolean sentinel = !uri.getSentinels().isEmpty();
    boolean hosts = uri.getHost() != null && uri.getHost().indexOf(',') >= 0;
    if (sentinel) {
      if (cluster) {
        throw new IllegalArgumentException(
            "redisUri is a redis-sentinel:// URI; Sentinel does not manage a Redis Cluster");
      }
      uri.setTimeout(commandTimeout);
      return new RedisEndpoint(Topology.SENTINEL, standalone(uri, commandTimeout), null, uri);
    }
    if (!cluster && !hosts) {
      uri.setTimeout(commandTimeout);
      return new RedisEndpoint(Topology.STANDALONE, standalone(uri, commandTimeout), null, uri);
    }
    if (uri.getDatabase() != 0) {
      throw new IllegalArgumentException(
          "a Redis Cluster has only database 0; redisUri names " + uri.getDatabase());
    }
    List<RedisURI> seeds = RedisClusterURIUtil.toRedisURIs(URI.create(redisUri));
    seeds.forEach(s -> s.setTimeout(commandTimeout));
    RedisClusterClient c = RedisClusterClient.create(seeds);
    c.setOptions(
        ClusterClientOptions.builder()
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .socketOptions(socket(commandTimeout))
            // A MOVED or ASK reply means the command did not run, so following it never runs a
            // script twice; such a reply also refreshes the topology (adaptive refresh is on by
            // default), as does every reconnect.
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enablePeriodicRefresh(Duration.ofSeconds(30))
                    .build())
            .build());
    return new RedisEndpoint(Topology.CLUSTER, null, c, null);
  }

  Topology topology() {
    return topology;
  }

  /**
   * Connects; returns once the handshake's reply (for a cluster: the topology) came back. Not
   * thread-safe: the caller connects from one thread at a time.
   *
   * @throws io.lettuce.core.RedisException when Redis (or every seed, or every sentinel) is
   *     unreachable
   */
  Connection connect() {
    if (clusterClient != null) {
      StatefulRedisClusterConnection<String, String> c = clusterClient.connect(StringCodec.UTF8);
      openPrimaries(c);
      return new Connection(c, c.sync(), null);
    }
    SocketAddress primary = topology == Topology.SENTINEL ? askSentinel() : null;
    StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
    return new Connection(c, c.sync(), primary);
  }

  /**
   * Whether {@code c} still goes to the primary: under Sentinel, whether the sentinels name the
   * primary they named when it opened. A failover promotes the replica at once, but the old primary
   * takes seconds more to be turned into a replica (until then it takes writes, lost when it
   * resyncs), so the heartbeat asks instead of waiting for a READONLY. True when no sentinel
   * answers: the connection may well be fine. Not thread-safe, as {@link #connect()}.
   */
  boolean stillPrimary(Connection c) {
    if (topology != Topology.SENTINEL || c.primary() == null) {
      return true;
    }
    SocketAddress now = askSentinel();
    return now == null || now.equals(c.primary());
  }

  /** Where the sentinels say the primary is, or null when none answers. */
  private SocketAddress askSentinel() {
    try {
      if (sentinel == null || !sentinel.isOpen()) {
        closeSentinel();
        sentinel = client.connectSentinel(StringCodec.UTF8, sentinelUri); // the first that answers
      }
      return sentinel.sync().getMasterAddrByName(sentinelUri.getSentinelMasterId());
    } catch (RedisException e) {
      closeSentinel();
      return null;
    }
  }

  private void closeSentinel() {
    if (sentinel != null) {
      sentinel.closeAsync();
      sentinel = null;
    }
  }

  /**
   * Opens the connection to every primary now. Without reconnects Lettuce rejects a command routed
   * to a node whose connection is still being opened ("Currently not connected"), so the first
   * command of every room would fail. A primary that does not answer is left out: only its rooms
   * fail, and the heartbeat's reconnect tries it again (as it does for a primary a topology change
   * brings in).
   */
  private static void openPrimaries(StatefulRedisClusterConnection<String, String> c) {
    for (RedisClusterNode node : c.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
        try {
          c.getConnection(node.getUri().getHost(), node.getUri().getPort());
        } catch (RedisException e) {
          // only the rooms on that shard are unavailable
        }
      }
    }
  }

  /** Closes the client's threads. */
  @Override
  public void close() {
    closeSentinel();
    AbstractRedisClient c = clusterClient != null ? clusterClient : client;
    c.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /**
   * Lettuce's own reconnect is off, so a command is sent at most once (see {@link RedisLink}); the
   * owner reconnects.
   */
  private static RedisClient standalone(RedisURI uri, Duration commandTimeout) {
    RedisClient c = RedisClient.create(uri);
    c.setOptions(
        ClientOptions.builder()
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .socketOptions(socket(commandTimeout))
            .build());
    return c;
  }

  private static SocketOptions socket(Duration commandTimeout) {
    return SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build();
  }
}
