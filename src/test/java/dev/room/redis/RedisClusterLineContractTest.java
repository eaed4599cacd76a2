package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.Line;
import dev.room.spi.LineContractTest;
import java.io.IOException;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
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
    String room = "contract-" + UUID.randomUUID();
    RedisLine line = open(room, clock);
    rooms.put(line, room);
    line.setCapacity(capacity, clock.millis());
    return line;
  }

  private final Map<Line, String> rooms = new IdentityHashMap<>();

  private RedisLine open(String room, FakeClock clock) {
    // As on one server: the lease outlives the contract's clock jumps.
    return RedisLine.builder(cluster.uri(), room)
        .clock(clock)
        .leaseTtl(Duration.ofMinutes(10))
        .build();
  }

  /** A second instance on the same room in Redis. */
  @Override
  protected Line sameLine(Line line) {
    return open(rooms.get(line), clock);
  }

  /**
   * The scripts are the single server's, so the walk's rules are checked there; here it checks the
   * routing, and as many steps as {@link RedisLineContractTest}'s keep the class near a minute.
   */
  @Override
  protected int modelSteps() {
    return 400;
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
