package dev.room.redis;

import dev.room.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A redis-server of each test's own, a raw connection to it (to write what an older library version
 * left in a room) and lines on one room with a manual heartbeat. Register it as a
 * {@code @RegisterExtension} instance field.
 */
final class RawRedis implements BeforeEachCallback, AfterEachCallback {
  private final String room;
  private final FakeClock clock;
  private RedisServer server;
  private RedisClient client;
  private StatefulRedisConnection<String, String> raw;

  RawRedis(String room, FakeClock clock) {
    this.room = room;
    this.clock = clock;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    server = RedisServer.start();
    client = RedisClient.create(server.uri());
    raw = client.connect();
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (raw != null) {
      raw.close();
    }
    if (client != null) {
      client.shutdown();
    }
    if (server != null) {
      server.close();
    }
  }

  RedisCommands<String, String> sync() {
    return raw.sync();
  }

  /** Another instance's line on the room. */
  RedisLine line() {
    return RedisLine.builder(server.uri(), room)
        .clock(clock)
        .leaseTtl(Duration.ofMinutes(10))
        .manualHeartbeat()
        .build();
  }
}
