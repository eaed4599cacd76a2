package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What only a Redis Cluster has: rooms on different shards, and a room whose slot moves to another
 * shard (resharding) while it runs, onto a node that never saw the line's scripts.
 */
class RedisClusterTest {
  private static final Policy POLICY = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);
  private static LocalCluster cluster;

  private final FakeClock clock = new FakeClock();
  private final List<RedisLine> lines = new ArrayList<>();
  private long next = 1;

  @BeforeAll
  static void startCluster() throws IOException {
    cluster = LocalCluster.start(3);
  }

  @AfterAll
  static void stopCluster() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void closeLines() {
    for (RedisLine l : lines) {
      l.checkInvariants();
      l.close();
    }
  }

  @Test
  void twoRoomsLandOnDifferentShardsEachWithItsOwnLine() {
    String a = "shard-a-" + UUID.randomUUID();
    String b = roomOnAnotherShard(a);
    RedisLine lineA = line(a, 1);
    RedisLine lineB = line(b, 1);
    assertEquals(RedisEndpoint.Topology.CLUSTER, lineA.link().topology());

    arrive(lineA); // admitted
    arrive(lineA);
    arrive(lineB);

    int shardA = cluster.owner(meta(a));
    int shardB = cluster.owner(meta(b));
    assertNotEquals(shardA, shardB);
    int slotA = io.lettuce.core.cluster.SlotHash.getSlot(meta(a));
    int slotB = io.lettuce.core.cluster.SlotHash.getSlot(meta(b));
    assertTrue(cluster.node(shardA).clusterCountKeysInSlot(slotA) > 0, "room a on its shard");
    assertTrue(cluster.node(shardB).clusterCountKeysInSlot(slotB) > 0, "room b on its shard");
    assertEquals(0, cluster.node(shardB).clusterCountKeysInSlot(slotA), "nothing of a elsewhere");
    assertEquals(0, cluster.node(shardA).clusterCountKeysInSlot(slotB), "nothing of b elsewhere");
    assertEquals(1, lineA.waiting());
    assertEquals(1, lineA.inFlight());
    assertEquals(0, lineB.waiting());
    assertEquals(1, lineB.inFlight());
  }

  @Test
  void aRoomKeepsItsLineWhenItsSlotMovesToAShardThatNeverRanItsScripts() {
    String room = "moving-" + UUID.randomUUID();
    RedisLine line = line(room, 1);
    long[] first = arrive(line);
    assertEquals(Outcome.ADMITTED, Outcome.kind(first[2]));
    List<long[]> waiting = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      long[] c = arrive(line);
      assertEquals(i, Outcome.position(c[2]));
      waiting.add(c);
    }
    int from = cluster.owner(meta(room));
    int to = (from + 1) % cluster.size();
    String sha = new LuaScripts().sha(Op.POLLS); // a poll goes as a batch (PollBatch)
    assertEquals(List.of(false), cluster.node(to).scriptExists(sha), "the new shard lacks it");

    cluster.moveSlot(meta(room), to);

    // The first command meets MOVED (followed by Lettuce), then NOSCRIPT on the new shard.
    for (int i = 0; i < 3; i++) {
      long o = poll(line, waiting.get(i));
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      assertEquals(i + 1, Outcome.position(o), "every place kept");
    }
    assertEquals(to, cluster.owner(meta(room)));
    assertEquals(List.of(true), cluster.node(to).scriptExists(sha), "loaded where it ran");
    assertEquals(4, Outcome.position(arrive(line)[2]), "a new arrival joins at the back");
    line.exit(clock.millis());
    assertEquals(
        Outcome.READY, Outcome.kind(poll(line, waiting.get(0))), "the freed slot moved up");
    assertEquals(0, line.inFlight());
  }

  @Test
  void aShardThatForgotTheScriptsLearnsThemAgain() {
    String room = "flushed-" + UUID.randomUUID();
    RedisLine line = line(room, 0);
    long[] c = arrive(line);
    cluster.node(cluster.owner(meta(room))).scriptFlush();
    assertEquals(1, Outcome.position(poll(line, c)));
    assertEquals(2, Outcome.position(arrive(line)[2]));
  }

  private RedisLine line(String room, int capacity) {
    RedisLine l =
        RedisLine.builder(cluster.uri(), room)
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .manualHeartbeat()
            .build();
    lines.add(l);
    l.setCapacity(capacity, clock.millis());
    return l;
  }

  /** Arrives a new client: {hi, lo, outcome}. */
  private long[] arrive(RedisLine l) {
    long hi = 0x5eed_0000L;
    long lo = next++;
    return new long[] {hi, lo, l.arrive(hi, lo, "k" + lo, false, clock.millis(), POLICY)};
  }

  private long poll(RedisLine l, long[] c) {
    return l.poll(c[0], c[1], clock.millis(), POLICY);
  }

  private static String meta(String room) {
    return new RoomKeys(room).all()[0];
  }

  private static String roomOnAnotherShard(String room) {
    int shard = cluster.owner(meta(room));
    for (int i = 0; ; i++) {
      String other = "shard-b-" + i;
      if (cluster.owner(meta(other)) != shard) {
        return other; // the name checked, not another one (its slot could be on any shard)
      }
    }
  }
}
