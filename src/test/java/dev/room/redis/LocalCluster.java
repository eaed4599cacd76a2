package dev.room.redis;

import static org.junit.jupiter.api.Assertions.fail;

import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A Redis Cluster of real {@code redis-server} nodes on free loopback ports, primaries only, the
 * slots split evenly in node order. Slots are assigned and nodes introduced from Java (CLUSTER
 * ADDSLOTS and MEET), so {@code redis-cli} is not needed.
 */
final class LocalCluster implements AutoCloseable {
  static final int SLOTS = 16384;

  private final List<RedisServer> nodes = new ArrayList<>();
  private final List<StatefulRedisConnection<String, String>> admin = new ArrayList<>();
  private final RedisClient client = RedisClient.create();

  private LocalCluster() {}

  /** Starts {@code primaries} nodes and waits (bounded) until every one reports the cluster ok. */
  static LocalCluster start(int primaries) throws IOException {
    LocalCluster c = new LocalCluster();
    try {
      for (int i = 0; i < primaries; i++) {
        RedisServer node = RedisServer.clusterNode();
        c.nodes.add(node);
        c.admin.add(c.client.connect(RedisURI.create("127.0.0.1", node.port())));
      }
      for (int i = 0; i < primaries; i++) {
        c.node(i).clusterAddSlots(IntStream.range(c.first(i), c.first(i + 1)).toArray());
      }
      for (int i = 1; i < primaries; i++) {
        c.node(0).clusterMeet("127.0.0.1", c.nodes.get(i).port());
      }
      c.await(
          () -> c.everyNode(i -> c.info(i).contains("cluster_state:ok")), "the cluster to come up");
      c.await(
          () ->
              c.everyNode(
                  i ->
                      c.info(i).contains("cluster_known_nodes:" + primaries)
                          && c.node(i).clusterNodes().lines().count() == primaries),
          "every node to know every other");
      return c;
    } catch (IOException | RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  /** The seeds, as a cluster URI. */
  String uri() {
    return "redis://"
        + nodes.stream().map(n -> "127.0.0.1:" + n.port()).collect(Collectors.joining(","));
  }

  int size() {
    return nodes.size();
  }

  /** Admin commands on node {@code i} alone (a plain connection, not routed). */
  RedisCommands<String, String> node(int i) {
    return admin.get(i).sync();
  }

  /** The node that owns {@code key}'s slot now. */
  int owner(String key) {
    int slot = SlotHash.getSlot(key);
    for (int i = 0; i < nodes.size(); i++) {
      if (owns(i, slot, i)) {
        return i;
      }
    }
    throw new IllegalStateException("no node owns slot " + slot);
  }

  /**
   * Moves {@code key}'s slot, with every key in it, from its owner to node {@code to}, as {@code
   * redis-cli --cluster reshard} does: IMPORTING, MIGRATING, MIGRATE, then the new owner for all.
   */
  void moveSlot(String key, int to) {
    int slot = SlotHash.getSlot(key);
    int from = owner(key);
    String target = node(to).clusterMyId();
    node(to).clusterSetSlotImporting(slot, node(from).clusterMyId());
    node(from).clusterSetSlotMigrating(slot, target);
    List<String> keys;
    while (!(keys = node(from).clusterGetKeysInSlot(slot, 1000)).isEmpty()) {
      node(from)
          .migrate(
              "127.0.0.1", nodes.get(to).port(), 0, 5000, MigrateArgs.Builder.keys(keys).replace());
    }
    for (int i = 0; i < nodes.size(); i++) {
      node(i).clusterSetSlotNode(slot, target);
    }
    await(() -> everyNode(i -> owns(to, slot, i)), "every node to see slot " + slot + " moved");
  }

  /** Stops every node (by its process) and removes its directory. */
  @Override
  public void close() throws IOException {
    admin.forEach(StatefulRedisConnection::close);
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    IOException failed = null;
    for (RedisServer n : nodes) {
      try {
        n.close();
      } catch (IOException e) {
        failed = e;
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  private int first(int i) {
    return (int) ((long) SLOTS * i / nodes.size());
  }

  /** Whether node {@code asked} believes node {@code i} owns {@code slot}. */
  private boolean owns(int i, int slot, int asked) {
    String id = node(i).clusterMyId();
    for (Object range : node(asked).clusterSlots()) {
      List<?> r = (List<?>) range;
      long lo = (Long) r.get(0);
      long hi = (Long) r.get(1);
      String owner = (String) ((List<?>) r.get(2)).get(2);
      if (lo <= slot && slot <= hi) {
        return id.equals(owner);
      }
    }
    return false;
  }

  private String info(int i) {
    return node(i).clusterInfo();
  }

  private boolean everyNode(java.util.function.IntPredicate p) {
    return IntStream.range(0, nodes.size()).allMatch(p);
  }

  /** A bounded wait on real processes reaching a state. */
  private void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      try {
        TimeUnit.MILLISECONDS.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted waiting for " + what);
      }
    }
  }
}
