package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.Controls;
import dev.room.spi.ControlsContractTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The controls' contract in Redis: each handle is another instance's line on the same room. */
class RedisControlsContractTest extends ControlsContractTest {
  private static RedisServer redis;
  private final FakeClock clock = new FakeClock();
  private final List<RedisLine> lines = new ArrayList<>();
  private final java.util.Map<Controls, String> rooms = new java.util.IdentityHashMap<>();

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

  private Controls open(String room) {
    RedisLine l =
        RedisLine.builder(redis.uri(), room)
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .manualHeartbeat()
            .build();
    lines.add(l);
    Controls c = l.controls();
    rooms.put(c, room);
    return c;
  }

  @Override
  protected Controls newControls() {
    return open("controls-" + UUID.randomUUID());
  }

  @Override
  protected Controls sameStore(Controls c) {
    return open(rooms.get(c));
  }
}
