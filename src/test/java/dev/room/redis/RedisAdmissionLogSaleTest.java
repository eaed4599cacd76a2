package dev.room.redis;

import dev.room.AdmissionLogSaleTest;
import dev.room.FakeClock;
import dev.room.spi.Line;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The recorded sale on a real Redis: an observed log (this instance's view), which verifies. */
class RedisAdmissionLogSaleTest extends AdmissionLogSaleTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  @Override
  protected Line newLine(int capacity, FakeClock clock) {
    RedisLine line =
        RedisLine.builder(redis.uri(), "audit-" + UUID.randomUUID())
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .build();
    line.setCapacity(capacity, clock.millis());
    return line;
  }

  @Override
  protected void jumped(Line line) {
    ((RedisLine) line).beat();
  }

  @Override
  protected boolean exact() {
    return false;
  }
}
