package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.room.FakeClock;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A primary, a replica and a sentinel, all real, and a line connected through the sentinel. A
 * forced failover ({@code SENTINEL FAILOVER}) promotes the replica; the line finds the new primary
 * by itself (its heartbeat runs in the background, as in production, and asks the sentinel where
 * the primary is) and the room goes on with the state the replica had. The writes a failover can
 * lose are those not yet replicated: this test lets replication catch up ({@code WAIT}) first, so
 * it asserts that everything survives.
 */
class RedisSentinelFailoverTest {
  private static final String MASTER = "mymaster";
  private static final Policy POLICY = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);

  private final FakeClock clock = new FakeClock();
  private final RedisClient admin = RedisClient.create();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final Map<RedisServer, StatefulRedisConnection<String, String>> connections =
      new HashMap<>();
  private final String room = "failover-" + UUID.randomUUID();
  private final RoomKeys keys = new RoomKeys(room);
  private RedisSentinelCommands<String, String> sentinelCommands;
  private RedisServer primary;
  private RedisServer replica;
  private RedisServer sentinel;
  private RedisLine line;
  private long next = 1;

  @BeforeEach
  void start() throws Exception {
    primary = closeLater(RedisServer.start());
    replica = closeLater(RedisServer.replicaOf(primary));
    await(() -> info(replica, "replication").contains("master_link_status:up"), "replication");
    sentinel = closeLater(RedisServer.sentinel(primary, MASTER));
    await(this::sentinelSeesAHealthyReplica, "the sentinel to find the replica");
  }

  @AfterEach
  void stop() throws Exception {
    if (line != null) {
      line.close();
    }
    admin.shutdown(Duration.ZERO, Duration.ofSeconds(2)); // closes its connections
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close(); // each server by its own process
    }
  }

  @Test
  void aForcedFailoverKeepsTheReplicatedLineAndTheRoomGoesOnOnTheNewPrimary() {
    line =
        RedisLine.builder("redis-sentinel://127.0.0.1:" + sentinel.port() + "/0#" + MASTER, room)
            .clock(clock)
            .leaseTtl(Duration.ofSeconds(3))
            .build();
    assertEquals(RedisEndpoint.Topology.SENTINEL, line.link().topology());
    line.setCapacity(2, clock.millis());
    assertEquals(Outcome.ADMITTED, Outcome.kind(arrive()[2]));
    assertEquals(Outcome.ADMITTED, Outcome.kind(arrive()[2]));
    List<long[]> waiting = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      long[] c = arrive();
      assertEquals(i, Outcome.position(c[2]));
      waiting.add(c);
    }
    assertEquals(1L, commands(primary).waitForReplication(1, 5000), "the replica has it all");

    sentinel().failover(MASTER);
    await(() -> primaryPort() == replica.port(), "the sentinel to promote the replica");
    // The old primary still takes writes for seconds, until the sentinel turns it into a replica;
    // the line's heartbeat (every second here) sees that the sentinel names another primary and
    // reconnects. A poll stamps the client's last activity (its record's LAST: a batched poll
    // leaves the act index behind) with the (fake) time: once the stamp shows on the new primary,
    // the line serves from it.
    long[] probe = waiting.get(0);
    await(
        () -> {
          clock.advanceMillis(1);
          long now = clock.millis();
          pollIfUp(probe, now);
          Long seen =
              commands(replica)
                  .evalReadOnly(
                      "local r = redis.call('HGET', KEYS[1], ARGV[1])"
                          + " return r and cmsgpack.unpack(r)[7]",
                      ScriptOutputType.INTEGER,
                      new String[] {keys.all()[1]},
                      Tokens.format(probe[0], probe[1]));
          return seen != null && seen == now;
        },
        "the line to serve from the new primary");
    for (int i = 0; i < 3; i++) {
      long o = line.poll(waiting.get(i)[0], waiting.get(i)[1], clock.millis(), POLICY);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      assertEquals(i + 1, Outcome.position(o), "every place survived");
    }
    assertEquals(2, line.inFlight(), "both admitted requests still hold their slots");

    line.exit(clock.millis());
    long[] first = waiting.get(0);
    assertEquals(
        Outcome.READY, Outcome.kind(line.poll(first[0], first[1], clock.millis(), POLICY)));
    assertEquals(
        Outcome.ADMITTED, Outcome.kind(line.claim(first[0], first[1], clock.millis(), POLICY)));
    long[] late = arrive();
    assertEquals(3, Outcome.position(late[2]), "a new arrival joins behind the two left");
    assertTrue(
        commands(replica).hexists(keys.all()[1], Tokens.format(late[0], late[1])),
        "written to the new primary");
    line.checkInvariants();
  }

  private long[] arrive() {
    long hi = 0xfa11_0000L;
    long lo = next++;
    return new long[] {hi, lo, line.arrive(hi, lo, "k" + lo, false, clock.millis(), POLICY)};
  }

  private void pollIfUp(long[] c, long now) {
    try {
      line.poll(c[0], c[1], now, POLICY);
    } catch (LineUnavailableException e) {
      // the heartbeat reconnects meanwhile
    }
  }

  private boolean sentinelSeesAHealthyReplica() {
    List<Map<String, String>> replicas = sentinel().replicas(MASTER);
    return replicas.size() == 1
        && "slave".equals(replicas.get(0).get("flags"))
        && "ok".equals(replicas.get(0).get("master-link-status"));
  }

  private int primaryPort() {
    return ((java.net.InetSocketAddress) sentinel().getMasterAddrByName(MASTER)).getPort();
  }

  private RedisSentinelCommands<String, String> sentinel() {
    if (sentinelCommands == null) {
      sentinelCommands =
          admin.connectSentinel(RedisURI.create("127.0.0.1", sentinel.port())).sync();
    }
    return sentinelCommands;
  }

  /** Plain commands on one server; a connection the failover dropped is opened again. */
  private RedisCommands<String, String> commands(RedisServer s) {
    StatefulRedisConnection<String, String> c = connections.get(s);
    if (c == null || !c.isOpen()) {
      c = admin.connect(RedisURI.create("127.0.0.1", s.port()));
      connections.put(s, c);
    }
    return c.sync();
  }

  private String info(RedisServer s, String section) {
    return commands(s).info(section);
  }

  private RedisServer closeLater(RedisServer s) {
    closing.add(s);
    return s;
  }

  /** A bounded wait on real processes reaching a state; a command that fails counts as not yet. */
  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RedisException notYet) {
        // a node restarting its role, or a sentinel mid-failover
      }
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
