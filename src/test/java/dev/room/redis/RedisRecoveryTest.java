package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Recovery from whatever Redis lost (issue 15): a restart without persistence must not freeze the
 * room or forget the slots still in use, and clients let in while Redis was down (fail-open) must
 * not stay in line as ghosts that are offered every free slot. Heartbeats are driven by hand.
 */
class RedisRecoveryTest {
  private static final long LEASE = 15_000;

  private final FakeClock clock = new FakeClock();
  private final Policy policy = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);
  private final String room = "recovery-" + UUID.randomUUID();
  private final List<RedisLine> lines = new ArrayList<>();
  private RedisServer redis;

  @BeforeEach
  void startRedis() throws IOException {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    lines.forEach(RedisLine::close);
    redis.close();
  }

  private RedisLine instance(boolean failOpen) {
    RedisLine l =
        RedisLine.builder(redis.uri(), room)
            .clock(clock)
            .leaseTtl(Duration.ofMillis(LEASE))
            .failOpen(failOpen)
            .manualHeartbeat()
            .build();
    lines.add(l);
    return l;
  }

  private long now() {
    return clock.millis();
  }

  private long[] arrival(Line l) {
    long[] t = Tokens.generate();
    l.arrive(t[0], t[1], "", false, now(), policy);
    return t;
  }

  private int kind(Line l, long[] t) {
    return Outcome.kind(l.poll(t[0], t[1], now(), policy));
  }

  @Test
  void aRedisRestartWithoutPersistenceFreezesTheRoom() throws Exception {
    RedisLine a = instance(false);
    RedisLine b = instance(false);
    a.setCapacity(3, now());
    a.beat(); // both registered, as every instance does when it starts
    b.beat();
    assertTrue(b.tryEnter());
    b.exit(now());

    redis.stop();
    redis.restartEmpty();
    RedisLeaseTest.awaitReconnect(a);
    RedisLeaseTest.awaitReconnect(b);
    a.beat();

    assertEquals(3, a.capacity(), "the fleet re-established its capacity");
    assertEquals(1, a.stateLosses(), "each instance noticed the loss");
    assertEquals(1, b.stateLosses());
    for (int i = 0; i < 3; i++) {
      long[] t = Tokens.generate();
      RedisLine l = i % 2 == 0 ? a : b;
      assertEquals(
          Outcome.ADMITTED,
          Outcome.kind(l.arrive(t[0], t[1], "", false, now(), policy)),
          "newcomer " + i + " gets one of the 3 free slots");
    }
    assertFalse(a.tryEnter(), "and the capacity still holds");
    a.checkInvariants();
  }

  /**
   * Regression (second reading): after a restart without persistence the lease generations count
   * from 1 again, so an instance that registered first after it could be given the generation
   * another still used; that one's heartbeat then found its lease live, never noticed the loss, and
   * the two counts overwrote each other in Redis, which let more in than the capacity.
   */
  @Test
  void anInstanceWhoseOldGenerationIsReissuedAfterALossSharesAnothersLease() throws Exception {
    RedisLine a = instance(false);
    RedisLine b = instance(false);
    a.setCapacity(2, now());
    a.beat(); // a holds generation 1, b generation 2
    b.beat();
    assertTrue(a.tryEnter());

    redis.stop();
    redis.restartEmpty();
    RedisLeaseTest.awaitReconnect(b); // b registers first after the loss
    RedisLeaseTest.awaitReconnect(a);
    assertEquals(1, a.stateLosses(), "a noticed the loss too");
    assertTrue(b.tryEnter(), "a's running request and b's fill the capacity of 2");
    b.beat();
    a.beat();
    assertEquals(2, a.inFlight());
    assertFalse(a.tryEnter(), "and nobody more is let in");
    assertFalse(b.tryEnter());
    a.exit(now());
    b.exit(now());
    a.checkInvariants();
  }

  /**
   * Regression (second reading): the hold and a limited allowance live in the room's meta hash, so
   * a restart without persistence turned a paused (or rated) line into an unlimited one, and the
   * fast path let everyone in although the room was paused.
   */
  @Test
  void aPausedLineIsUnlimitedAfterARedisRestartWithoutPersistence() throws Exception {
    RedisLine a = instance(false);
    RedisLine b = instance(false);
    a.setCapacity(2, now());
    a.beat();
    b.beat();
    a.setAllowance(0, now());
    a.hold(true, now()); // a paused
    b.setAllowance(1, now()); // b's rate, spent below
    assertFalse(b.tryEnter());

    redis.stop();
    redis.restartEmpty();
    RedisLeaseTest.awaitReconnect(b);
    RedisLeaseTest.awaitReconnect(a);
    assertEquals(2, a.capacity());
    assertFalse(a.tryEnter(), "still held on a");
    assertFalse(b.tryEnter(), "and on b");
    b.addAllowance(1, 1, now());
    assertFalse(b.tryEnter(), "a refill adds nothing while held");
    a.hold(false, now());
    assertFalse(b.tryEnter(), "lifted, the allowance stays 0 until set");
    b.addAllowance(1, 1, now());
    assertTrue(b.tryEnter(), "b's rate refills it");
    assertFalse(b.tryEnter());
    b.exit(now());
    a.checkInvariants();
  }

  /**
   * The fleet's rate bucket lives in the room's meta hash too: after a restart without persistence
   * an instance that metered the line sends it again, empty (the loss is no fresh burst) and still
   * metered (not unlimited), and its rate refills it for every instance.
   */
  @Test
  void aRatedLineIsMeteredAgainEmptyAfterARedisRestartWithoutPersistence() throws Exception {
    RedisLine a = instance(false);
    RedisLine b = instance(false);
    a.setCapacity(5, now());
    a.beat();
    b.beat();
    a.meter(2, 2, now());
    assertTrue(b.tryEnter());
    assertTrue(b.tryEnter());
    assertFalse(b.tryEnter(), "one bucket of two for both");
    b.exit(now());
    b.exit(now());

    redis.stop();
    redis.restartEmpty();
    RedisLeaseTest.awaitReconnect(b);
    RedisLeaseTest.awaitReconnect(a);
    assertFalse(a.tryEnter(), "the bucket came back empty, not unlimited");
    assertFalse(b.tryEnter());
    clock.advanceMillis(1000);
    b.refill(now());
    assertTrue(a.tryEnter(), "its rate refills it, whoever refills");
    assertTrue(a.tryEnter());
    assertFalse(b.tryEnter(), "two a second");
    a.exit(now());
    a.exit(now());
    a.checkInvariants();
  }

  /**
   * Regression (second reading): the shared sale controls live in the room's meta hash, so after a
   * restart without persistence the fleet's pause was nowhere in Redis and the next instance to
   * start seeded its own settings (open) for every instance.
   */
  @Test
  void anInstanceStartedAfterRedisLostTheRoomReopensAPausedFleet() throws Exception {
    RedisLine la = RedisLine.builder(redis.uri(), room).clock(clock).manualHeartbeat().build();
    try (WaitingRoom a = WaitingRoom.builder().line(la).clock(clock).build()) {
      la.beat();
      a.setMode(RoomMode.PAUSED);
      redis.stop();
      redis.restartEmpty();
      RedisLeaseTest.awaitReconnect(la);
      clock.advance(Duration.ofMillis(1001));
      a.evictExpired(); // a reads the controls again
      RedisLine lc = RedisLine.builder(redis.uri(), room).clock(clock).manualHeartbeat().build();
      try (WaitingRoom c = WaitingRoom.builder().line(lc).clock(clock).build()) {
        assertEquals(RoomMode.PAUSED, c.mode(), "the fleet is still paused");
        assertFalse(lc.tryEnter());
      }
      assertEquals(RoomMode.PAUSED, a.mode());
    }
  }

  @Test
  void aRedisRestartWithoutPersistenceForgetsTheSlotsStillInUse() throws Exception {
    RedisLine a = instance(false);
    a.setCapacity(2, now());
    assertTrue(a.tryEnter());
    assertTrue(a.tryEnter());

    redis.stop();
    redis.restartEmpty();
    RedisLeaseTest.awaitReconnect(a);

    assertEquals(2, a.inFlight(), "the two requests still running hold their slots again");
    assertFalse(a.tryEnter(), "so a third is not let in beside them");
    a.exit(now());
    a.exit(now());
    assertEquals(0, a.inFlight());
    assertTrue(a.tryEnter(), "and their slots come back when they finish");
    a.exit(now());
    a.checkInvariants();
  }

  @Test
  void clientsLetInWhileRedisWasDownStayInLineAsGhosts() throws Exception {
    RedisLine a = instance(true);
    a.setCapacity(1, now());
    assertTrue(a.tryEnter()); // the slot is busy, so these wait
    long[] ghost1 = arrival(a);
    long[] ghost2 = arrival(a);
    long[] newcomer = arrival(a);
    assertEquals(Outcome.WAITING, kind(a, newcomer));

    redis.stop();
    assertEquals(Outcome.ADMITTED, Outcome.kind(a.claim(ghost1[0], ghost1[1], now(), policy)));
    assertEquals(Outcome.ADMITTED, Outcome.kind(a.claim(ghost2[0], ghost2[1], now(), policy)));
    a.exit(now());
    a.exit(now());
    a.exit(now()); // the first request, its release lost to the outage
    redis.restart(); // the line itself survived (AOF): the two are still in it
    RedisLeaseTest.awaitReconnect(a);

    assertNull(a.ticket(ghost1[0], ghost1[1]), "let in during the outage: retired");
    assertNull(a.ticket(ghost2[0], ghost2[1]));
    assertEquals(Outcome.READY, kind(a, newcomer), "so the free slot goes to who still waits");
    assertEquals(2, a.ghostsRetired());
    a.checkInvariants();
  }
}
