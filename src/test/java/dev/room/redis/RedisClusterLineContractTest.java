package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.Line;
import dev.room.spi.LineContractTest;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The line contract on a real 3-primary Redis Cluster: one cluster for the class, a fresh room per
 * line, each room on the shard its hash tag picks (so the suite's rooms spread over all three).
 */
class RedisClusterLineContractTest extends LineContractTest {
  private static LocalCluster cluster;

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

  @Override
  protected Line newLine(int capacity, FakeClock clock) {
    // As on one server: the lease outlives the contract's clock jumps.
    RedisLine line =
        RedisLine.builder(cluster.uri(), "contract-" + UUID.randomUUID())
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .build();
    line.setCapacity(capacity, clock.millis());
    return line;
  }

  @Override
  protected int evictionVolume() {
    return 2_500;
  }

  @Override
  protected void checkStorage(Line line) {
    ((RedisLine) line).checkInvariants();
  }
}
