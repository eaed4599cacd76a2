package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.Controls;
import dev.room.spi.ControlsContractTest;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The controls' contract in Redis: each handle is another instance's line on the same room. */
class RedisControlsContractTest extends ControlsContractTest {
  private static RedisServer redis;
  private final FakeClock clock = new FakeClock();
  private final RoomHandles<Controls> handles = new RoomHandles<>();

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
    handles.close();
  }

  private Controls open(String room) {
    return handles.on(room, handles.line(redis, room, clock, Duration.ofMinutes(10)).controls());
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
