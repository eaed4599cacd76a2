package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.Controls;
import dev.room.spi.ControlsContractTest;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The controls' contract in Redis: each handle is another instance's line on the same room. */
class RedisControlsContractTest extends ControlsContractTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private final FakeClock clock = new FakeClock();
  private final RoomHandles<Controls> handles = new RoomHandles<>();

  @AfterEach
  void closeLines() {
    handles.close();
  }

  private Controls open(String room) {
    return handles.on(
        room, handles.line(redis.server(), room, clock, Duration.ofMinutes(10)).controls());
  }

  @Override
  protected Controls newControls() {
    return open("controls-" + UUID.randomUUID());
  }

  @Override
  protected Controls sameStore(Controls c) {
    return open(handles.room(c));
  }
}
