package dev.room.redis;

import dev.room.FakeClock;
import dev.room.RoomStressTest;
import dev.room.spi.Line;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The room's random walk on a real Redis: one server for the class, a fresh room per line. */
class RedisRoomStressTest extends RoomStressTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  @Override
  protected Line newLine(int capacity, FakeClock clock) {
    // The walk moves the clock past every timeout; the lease outlives every jump and is renewed
    // by hand after every step (checkStorage), so it never lapses under the walk.
    RedisLine line =
        RedisLine.builder(redis.uri(), "stress-" + UUID.randomUUID())
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .build();
    line.setCapacity(capacity, clock.millis());
    return line;
  }

  @Override
  protected void checkStorage(Line line) {
    RedisLine redisLine = (RedisLine) line;
    redisLine.checkInvariants();
    redisLine.beat();
  }

  @Override
  protected int seeds() {
    return 6;
  }

  @Override
  protected int steps() {
    return 800;
  }
}
