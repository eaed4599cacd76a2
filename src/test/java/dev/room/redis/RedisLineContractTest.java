package dev.room.redis;

import dev.room.FakeClock;
import dev.room.spi.Line;
import dev.room.spi.LineContractTest;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The line contract on a real Redis: one server for the class, a fresh room per line. */
class RedisLineContractTest extends LineContractTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  @Override
  protected Line newLine(int capacity, FakeClock clock) {
    String room = "contract-" + UUID.randomUUID();
    RedisLine line = open(room, clock);
    rooms.put(line, room);
    line.setCapacity(capacity, clock.millis());
    return line;
  }

  private final Map<Line, String> rooms = new IdentityHashMap<>();

  private RedisLine open(String room, FakeClock clock) {
    // The contract moves the clock by up to a ticket TTL at once with no heartbeat in between, so
    // the lease outlives every jump; the lease tests drive heartbeats by hand instead.
    return RedisLine.builder(redis.uri(), room)
        .clock(clock)
        .leaseTtl(Duration.ofMinutes(10))
        .build();
  }

  /** A second instance on the same room in Redis. */
  @Override
  protected Line sameLine(Line line) {
    return open(rooms.get(line), clock);
  }

  /** More than two eviction steps' worth, and quick on a real Redis. */
  @Override
  protected int evictionVolume() {
    return 2_500;
  }

  /**
   * Every step of the model checks the whole line (queue, CHECK script) over round trips, so the
   * line's length makes a step dearer: this many keep the six walks to a few seconds.
   */
  @Override
  protected int modelSteps() {
    return 400;
  }

  @Override
  protected void checkStorage(Line line) {
    ((RedisLine) line).checkInvariants();
  }
}
