package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.HealthWindow;
import dev.room.spi.HealthWindowContractTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The health window's contract in Redis: each handle is another instance's line on the same room.
 */
class RedisHealthWindowContractTest extends HealthWindowContractTest {
  private static RedisServer redis;
  private final FakeClock clock = new FakeClock();
  private final List<RedisLine> lines = new ArrayList<>();
  private final java.util.Map<HealthWindow, String> rooms = new java.util.IdentityHashMap<>();

  @BeforeAll
  static void startRedis() throws IOException {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() throws IOException {
    if (redis != null) {
      redis.close();
    }
  }

  @AfterEach
  void closeLines() {
    lines.forEach(RedisLine::close);
  }

  private HealthWindow open(String room) {
    RedisLine l =
        RedisLine.builder(redis.uri(), room)
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .manualHeartbeat()
            .build();
    lines.add(l);
    HealthWindow c = l.healthWindow();
    rooms.put(c, room);
    return c;
  }

  @Override
  protected HealthWindow newWindow() {
    return open("health-" + UUID.randomUUID());
  }

  @Override
  protected HealthWindow sameStore(HealthWindow c) {
    return open(rooms.get(c));
  }
}
