package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.room.FakeClock;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rolling upgrade onto a room written by a version without the {@code here} key: everyone queued
 * before counts as present, and members an older instance left behind are dropped, not offered.
 */
class RedisPresenceUpgradeTest {
  private static final Policy POLICY = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);

  private final FakeClock clock = new FakeClock();
  @RegisterExtension final RawRedis redis = new RawRedis("upgrade", clock);

  @Test
  void clientsQueuedBeforeTheUpgradeArePresentAndStaleMembersAreDropped() {
    long[] a = Tokens.generate();
    long[] b = Tokens.generate();
    try (RedisLine old = redis.line()) {
      old.beat();
      old.setCapacity(1, clock.millis());
      old.tryEnter();
      old.arrive(a[0], a[1], "", false, clock.millis(), POLICY);
      old.arrive(b[0], b[1], "", false, clock.millis(), POLICY);
      // As a version without presence would have left it: no here key, no marker.
      String prefix = "{room:upgrade}:";
      redis.sync().del(prefix + "here");
      redis.sync().hdel(prefix + "meta", "hv");
      try (RedisLine upgraded = redis.line()) {
        upgraded.beat(); // registers: the first instance that keeps presence
        // A member left behind by an older instance for a ticket that is gone.
        redis.sync().zadd(prefix + "here", 0, "00000000" + "0".repeat(32) + Tokens.format(9, 9));
        old.exit(clock.millis());
        assertEquals(
            Outcome.READY,
            Outcome.kind(upgraded.poll(a[0], a[1], clock.millis(), POLICY)),
            "the first queued before the upgrade is present and offered");
        assertEquals(1, Outcome.position(upgraded.poll(b[0], b[1], clock.millis(), POLICY)));
        upgraded.checkInvariants();
      }
    }
  }
}
