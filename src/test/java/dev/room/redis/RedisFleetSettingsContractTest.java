package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.room.FakeClock;
import dev.room.spi.FleetSettings;
import dev.room.spi.FleetSettingsContractTest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fleet settings' contract in Redis: each handle is another instance's line on one room. */
class RedisFleetSettingsContractTest extends FleetSettingsContractTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private final FakeClock clock = new FakeClock();
  private final RoomHandles<FleetSettings> handles = new RoomHandles<>();

  @AfterEach
  void closeLines() {
    handles.close();
  }

  private FleetSettings open(String room, Duration leaseTtl) {
    return handles.on(room, handles.line(redis.server(), room, clock, leaseTtl).fleetSettings());
  }

  @Override
  protected FleetSettings newStore() {
    return open("fleet-" + UUID.randomUUID(), Duration.ofMinutes(10));
  }

  @Override
  protected FleetSettings sameStore(FleetSettings s) {
    return open(handles.room(s), Duration.ofMinutes(10));
  }

  @Test
  void theLineBringsItsLeaseTtl() {
    assertEquals(
        Map.of("leaseTtl", "PT7S"),
        open("fleet-" + UUID.randomUUID(), Duration.ofSeconds(7)).own());
  }
}
