package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.redis.RedisEndpoint.Topology;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which deployment a URI names; nothing here connects. */
class RedisEndpointTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  @Test
  void oneHostIsOneServer() {
    assertEquals(Topology.STANDALONE, topology("redis://127.0.0.1:6379/2", false));
  }

  @Test
  void severalHostsOrTheClusterOptionAreACluster() {
    assertEquals(Topology.CLUSTER, topology("redis://127.0.0.1:7000,127.0.0.1:7001", false));
    assertEquals(Topology.CLUSTER, topology("redis://h1,h2,h3", false));
    assertEquals(Topology.CLUSTER, topology("redis://127.0.0.1:7000", true));
  }

  @Test
  void aSentinelUriIsSentinel() {
    assertEquals(
        Topology.SENTINEL,
        topology("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/0#mymaster", false));
  }

  @Test
  void aClusterHasOnlyDatabaseZero() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RedisEndpoint.of("redis://h1:7000,h2:7001/3", false, TIMEOUT));
    assertTrue(e.getMessage().contains("database 0"), e.getMessage());
  }

  @Test
  void sentinelDoesNotManageACluster() {
    assertThrows(
        IllegalArgumentException.class,
        () -> RedisEndpoint.of("redis-sentinel://127.0.0.1:26379/0#m", true, TIMEOUT));
  }

  @Test
  void aBadUriIsRefusedWithItsReason() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> RedisEndpoint.of("nope://x", false, TIMEOUT));
    assertTrue(e.getMessage().startsWith("redisUri"), e.getMessage());
  }

  private static Topology topology(String uri, boolean cluster) {
    try (RedisEndpoint e = RedisEndpoint.of(uri, cluster, TIMEOUT)) {
      return e.topology();
    }
  }
}
