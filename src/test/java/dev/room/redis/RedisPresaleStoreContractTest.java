package dev.room.redis;

import dev.room.spi.PresaleStoreContractTest;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The pre-sale store's contract in Redis: each handle is another instance's line on the room. */
class RedisPresaleStoreContractTest extends PresaleStoreContractTest {
  private static RedisServer redis;
  private final RoomHandles<Handle> handles = new RoomHandles<>();

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

  private Handle open(String room, boolean first) {
    RedisLine l = handles.line(redis, room, clock, Duration.ofMinutes(10));
    if (first) {
      l.setCapacity(1, clock.millis());
      l.setAllowance(0, clock.millis());
    }
    return handles.on(room, new Handle(l, l.presales()));
  }

  @Override
  protected Handle open() {
    return open("presale-" + UUID.randomUUID(), true);
  }

  @Override
  protected Handle sameStore(Handle h) {
    return open(handles.room(h), false);
  }
}
