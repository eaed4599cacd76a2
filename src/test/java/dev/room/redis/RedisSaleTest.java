package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.RoomMode;
import dev.room.RoomThreads;
import dev.room.TicketInfo;
import dev.room.WaitingRoom;
import dev.room.engine.PresaleDraw;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Running a sale on a line shared in Redis by two rooms (two app instances): the hold and the
 * admission rate are the line's, so they bind every instance; the pre-sale draw runs in Lua.
 */
class RedisSaleTest {
  private static final Policy POLICY = new Policy(3_600_000, 0, 1000, 100_000, 60_000, 0);

  private final FakeClock clock = new FakeClock();
  private RedisServer redis;
  private RedisLine lineA;
  private RedisLine lineB;
  private WaitingRoom a;
  private WaitingRoom b;
  private String id;

  @BeforeEach
  void start() throws IOException {
    redis = RedisServer.start();
    id = "sale-" + UUID.randomUUID();
    lineA =
        RedisLine.builder(redis.uri(), id).clock(clock).leaseTtl(Duration.ofMinutes(10)).build();
    lineB =
        RedisLine.builder(redis.uri(), id).clock(clock).leaseTtl(Duration.ofMinutes(10)).build();
    // The arrivals here do not poll while the clock jumps: a TTL of an hour keeps them.
    Duration ttl = Duration.ofHours(1);
    a = WaitingRoom.builder().capacity(2).line(lineA).clock(clock).tokenTtl(ttl).build();
    b = WaitingRoom.builder().line(lineB).clock(clock).tokenTtl(ttl).build();
  }

  @AfterEach
  void stop() throws IOException {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    a.close();
    b.close();
    redis.close();
  }

  private long[] arrive(Line line) {
    long[] t = Tokens.generate();
    long o = line.arrive(t[0], t[1], "", false, clock.millis(), POLICY);
    assertEquals(Outcome.WAITING, Outcome.kind(o));
    return t;
  }

  @Test
  void aSharedLineKeepsPlacesAcrossARestartSoThePagesMaySaySo() {
    assertTrue(a.linePersisted(), "a shared line outlives an instance");
    a.setLinePersisted(false);
    assertFalse(a.linePersisted(), "unless the operator knows better");
  }

  @Test
  void aPauseOnOneInstanceHoldsTheSharedLineForAll() {
    a.setMode(RoomMode.PAUSED);
    assertEquals(0, lineB.allowance());
    assertFalse(lineB.tryEnter(), "the other instance's fast path is held too");
    long[] t = arrive(lineB);
    assertEquals(2, lineB.freeSlots(), "nothing handed over");
    a.setMode(RoomMode.OPEN);
    assertEquals(Line.UNLIMITED, lineB.allowance());
    assertEquals(Outcome.READY, Outcome.kind(lineB.poll(t[0], t[1], clock.millis(), POLICY)));
  }

  @Test
  void theAdmissionRateMetersEveryInstance() {
    a.setAdmissionRate(1); // a burst of one, then one a second
    assertTrue(lineB.tryEnter());
    assertFalse(lineB.tryEnter(), "the shared bucket is empty");
    assertFalse(lineA.tryEnter());
    clock.advance(Duration.ofSeconds(1));
    a.evictExpired(); // any pass by the room tops the bucket up
    assertTrue(lineA.tryEnter());
    lineA.exit(clock.millis());
    lineB.exit(clock.millis());
  }

  @Test
  void thePresaleDrawRunsInRedisAndMatchesTheSeed() {
    a.schedulePresale(clock.instant().plus(Duration.ofMinutes(5)));
    List<String> arrivals = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      long[] t = arrive(i % 2 == 0 ? lineA : lineB);
      arrivals.add(Tokens.format(t[0], t[1]));
    }
    assertEquals(0, lineA.ready(), "held until the opening");
    clock.advance(Duration.ofMinutes(5));
    a.evictExpired(); // the first pass at or after the opening draws
    byte[] seed = HexFormat.of().parseHex(a.presaleSeed().orElseThrow());
    List<String> expected = new ArrayList<>();
    for (int i : PresaleDraw.order(seed, 12)) {
      expected.add(arrivals.get(i));
    }
    List<String> line = lineB.queue(100).stream().map(TicketInfo::token).toList();
    assertEquals(expected, line, "the drawn order, as every instance reads it");
    assertEquals(2, lineB.ready(), "and admission runs: the first two drawn are ready");
  }

  /** Regression, on the shared line: re-applying a rate or a hold keeps the tokens spent. */
  @Test
  void reApplyingTheSameAdmissionRateKeepsTheTokensSpent() {
    a.setAdmissionRate(1);
    assertTrue(lineB.tryEnter(), "a full bucket of one");
    for (int i = 0; i < 10; i++) {
      a.setAdmissionRate(1);
      assertFalse(lineA.tryEnter(), "re-applied " + (i + 1) + " times: still spent");
    }
    a.setMode(RoomMode.PAUSED);
    a.setMode(RoomMode.OPEN);
    assertFalse(lineA.tryEnter(), "a pause and resume refill nothing");
    a.schedulePresale(clock.instant().plusSeconds(60));
    a.schedulePresale(null);
    assertFalse(lineA.tryEnter(), "nor does a pre-sale scheduled and cancelled");
    clock.advance(Duration.ofSeconds(1));
    a.evictExpired();
    assertTrue(lineA.tryEnter());
    lineA.exit(clock.millis());
    lineB.exit(clock.millis());
  }

  /**
   * Regression (issue 15): a pause on one instance was undone by another's admission rate, whose
   * refill topped up the allowance of 0 the pause is stored as.
   */
  @Test
  void aPauseOnOneInstanceIsUndoneByAnothersAdmissionRate() {
    b.setAdmissionRate(5);
    a.setMode(RoomMode.PAUSED);
    for (int s = 0; s < 6; s++) {
      clock.advance(Duration.ofSeconds(1));
      b.evictExpired(); // b's request path and reaper refill its bucket
      assertFalse(lineB.tryEnter(), "paused on a: nobody is let in on b, second " + (s + 1));
      assertEquals(0, lineA.allowance());
    }
    assertEquals(RoomMode.PAUSED, b.mode(), "and b knows it is paused");
  }

  /** Regression (issue 15): mode and announcement were per instance. */
  @Test
  void theModeAndAnnouncementSetOnOneInstanceAreInForceOnEveryInstanceWithinASecond() {
    // events are delivered on each room's event thread: collected thread-safely, read once idle
    List<String> modeEvents = new java.util.concurrent.CopyOnWriteArrayList<>();
    b.on(dev.room.Event.MODE, snap -> modeEvents.add("b"));
    a.on(dev.room.Event.MODE, snap -> modeEvents.add("a"));
    a.setMode(RoomMode.QUEUE_ALL);
    a.setAnnouncement("Doors open at ten");
    clock.advance(Duration.ofMillis(1001));
    b.evictExpired();
    assertEquals(RoomMode.QUEUE_ALL, b.mode());
    assertEquals("Doors open at ten", b.announcement());
    RoomThreads.awaitEvents(a);
    RoomThreads.awaitEvents(b);
    assertEquals(List.of("a"), modeEvents, "the change is an event where it was made");

    b.setMode(RoomMode.OPEN);
    b.setAnnouncement("");
    clock.advance(Duration.ofMillis(1001));
    a.evictExpired();
    assertEquals(RoomMode.OPEN, a.mode(), "and back, from the other side");
    assertEquals("", a.announcement());
  }

  /** A new instance joining a paused fleet starts paused. */
  @Test
  void anInstanceThatJoinsLaterTakesTheFleetsMode() {
    a.setMode(RoomMode.PAUSED);
    a.setAnnouncement("Back soon");
    RedisLine lineC =
        RedisLine.builder(redis.uri(), id).clock(clock).leaseTtl(Duration.ofMinutes(10)).build();
    // built alike (the fleet's token TTL), as every instance on one line must be
    try (WaitingRoom c =
        WaitingRoom.builder().line(lineC).clock(clock).tokenTtl(Duration.ofHours(1)).build()) {
      assertEquals(RoomMode.PAUSED, c.mode());
      assertEquals("Back soon", c.announcement());
      assertFalse(lineC.tryEnter());
    }
  }

  /**
   * Regression (second reading of issue 15): an instance that had not yet heard of another's pause
   * lifted the line's hold by re-applying its own stale mode when its pre-sale schedule changed.
   */
  @Test
  void aPauseOnOneInstanceIsUndoneByAnothersPresaleChange() {
    b.evictExpired(); // b has read the controls: OPEN, and will not read them for a second
    a.setMode(RoomMode.PAUSED);
    b.schedulePresale(clock.instant().plusSeconds(60));
    b.schedulePresale(null);
    assertEquals(0, lineA.allowance(), "the pause stands");
    assertFalse(lineB.tryEnter(), "nobody is let in on b");
    assertEquals(RoomMode.PAUSED, b.mode(), "and b knows it is paused");
  }
}
