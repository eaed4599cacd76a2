package dev.room.redis;

import dev.room.spi.PresaleStoreContractTest;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The pre-sale store's contract in Redis: each handle is another instance's line on the room. */
class RedisPresaleStoreContractTest extends PresaleStoreContractTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private final RoomHandles<Handle> handles = new RoomHandles<>();

  @AfterEach
  void closeLines() {
    handles.close();
  }

  private Handle open(String room, boolean first) {
    RedisLine l = handles.line(redis.server(), room, clock, Duration.ofMinutes(10));
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
