package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.Line;
import dev.room.spi.SessionStoreContractTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The session-store contract on a real Redis: each instance its own line on one fresh room. */
class RedisSessionStoreContractTest extends SessionStoreContractTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  @Override
  protected List<Line> instances(int n, int capacity, FakeClock clock) {
    String room = "sessions-" + UUID.randomUUID();
    List<Line> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      RedisLine line =
          RedisLine.builder(redis.uri(), room)
              .clock(clock)
              .leaseTtl(Duration.ofMinutes(10))
              .instanceName("instance-" + i)
              .build();
      line.setCapacity(capacity, clock.millis());
      out.add(line);
    }
    return out;
  }

  @Override
  protected void checkStorage(Line line) {
    ((RedisLine) line).checkInvariants();
  }
}
