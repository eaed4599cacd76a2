package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.HealthWindow;
import dev.room.spi.HealthWindowContractTest;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The health window's contract in Redis: each handle is another instance's line on the same room.
 */
class RedisHealthWindowContractTest extends HealthWindowContractTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private final FakeClock clock = new FakeClock();
  private final RoomHandles<HealthWindow> handles = new RoomHandles<>();

  @AfterEach
  void closeLines() {
    handles.close();
  }

  private HealthWindow open(String room) {
    return handles.on(
        room, handles.line(redis.server(), room, clock, Duration.ofMinutes(10)).healthWindow());
  }

  @Override
  protected HealthWindow newWindow() {
    return open("health-" + UUID.randomUUID());
  }

  @Override
  protected HealthWindow sameStore(HealthWindow c) {
    return open(handles.room(c));
  }
}
