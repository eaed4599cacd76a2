package dev.room.redis;

import dev.room.spi.PresaleStoreContractTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The pre-sale store's contract in Redis: each handle is another instance's line on the room. */
class RedisPresaleStoreContractTest extends PresaleStoreContractTest {
  private static RedisServer redis;
  private final List<RedisLine> lines = new ArrayList<>();
  private final Map<Handle, String> rooms = new IdentityHashMap<>();

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

  private Handle open(String room, boolean first) {
    RedisLine l =
        RedisLine.builder(redis.uri(), room)
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .manualHeartbeat()
            .build();
    lines.add(l);
    if (first) {
      l.setCapacity(1, clock.millis());
      l.setAllowance(0, clock.millis());
    }
    Handle h = new Handle(l, l.presales());
    rooms.put(h, room);
    return h;
  }

  @Override
  protected Handle open() {
    return open("presale-" + UUID.randomUUID(), true);
  }

  @Override
  protected Handle sameStore(Handle h) {
    return open(rooms.get(h), false);
  }
}
