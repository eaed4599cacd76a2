package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.AdmissionMode;
import dev.room.FakeClock;
import dev.room.WaitingRoom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The settings every instance on one Redis room must hold alike, on a real Redis: an instance built
 * with another value than the room's fails {@code build()} naming the setting, both values and the
 * fix; a setter on a running instance is the fleet's, adopted by every other within a second.
 */
class FleetSettingsTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private final FakeClock clock = new FakeClock(1_764_000_000_000L);
  private final List<RedisLine> lines = new ArrayList<>();
  private final List<WaitingRoom> rooms = new ArrayList<>();
  private final String roomId = "settings-" + UUID.randomUUID();

  @AfterEach
  void close() {
    rooms.forEach(WaitingRoom::close);
  }

  private RedisLine line(Duration leaseTtl) {
    RedisLine l =
        RedisLine.builder(redis.uri(), roomId)
            .clock(clock)
            .leaseTtl(leaseTtl)
            .manualHeartbeat()
            .build();
    lines.add(l);
    return l;
  }

  private WaitingRoom room(UnaryOperator<WaitingRoom.Builder> settings) {
    return room(line(Duration.ofSeconds(15)), settings);
  }

  private WaitingRoom room(RedisLine line, UnaryOperator<WaitingRoom.Builder> settings) {
    WaitingRoom r =
        settings.apply(WaitingRoom.builder().capacity(2).clock(clock).line(line)).build();
    rooms.add(r);
    return r;
  }

  /** One request-path step on {@code r} a second on: its sync of the shared settings runs. */
  private void tick(WaitingRoom r) {
    clock.advanceMillis(1001);
    r.evictExpired();
  }

  @Test
  void anInstanceBuiltWithAnotherTokenTtlFailsBuildNamingBothValuesAndTheFix() {
    room(b -> b.tokenTtl(Duration.ofMinutes(5)));
    RedisLine other = line(Duration.ofSeconds(15));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> room(other, b -> b.tokenTtl(Duration.ofMinutes(10))));
    String m = e.getMessage();
    assertTrue(m.contains("tokenTtl is PT10M here but PT5M on the line"), m);
    assertTrue(m.contains("build this instance with tokenTtl(PT5M)"), m);
    assertTrue(m.contains("setTokenTtl on a running instance"), m);
    assertFalse(m.contains("offerTimeout"), "only what differs is named: " + m);
    assertFalse(other.connected(), "the line of a room never built is closed");
    room(b -> b.tokenTtl(Duration.ofMinutes(5))); // built alike: joins
  }

  @Test
  void everySettingThatMustAgreeIsChecked() {
    room(b -> b);
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                room(
                    line(Duration.ofSeconds(20)),
                    b ->
                        b.tokenTtl(Duration.ofMinutes(2))
                            .firstPollGrace(Duration.ofSeconds(20))
                            .offerTimeout(Duration.ofSeconds(30))
                            .maxQueueDepth(1000)
                            .admissionMode(AdmissionMode.SESSIONS)
                            .sessionDuration(Duration.ofMinutes(3))
                            .sessionMaxDuration(Duration.ofMinutes(20))
                            .name("shop")));
    String m = e.getMessage();
    for (String s :
        List.of(
            "tokenTtl is PT2M here but PT5M",
            "firstPollGrace is PT20S here but PT0S",
            "offerTimeout is PT30S here but PT1M",
            "maxQueueDepth is 1000 here but 0",
            "admissionMode is SESSIONS here but REQUESTS",
            "sessionDuration is PT3M here but PT10M",
            "sessionMaxDuration is PT20M here but PT1H",
            "name is shop here but  on the line",
            "leaseTtl is PT20S here but PT15S on the line (to fix: build this instance's line"
                + " with leaseTtl(PT15S))")) {
      assertTrue(m.contains(s), s + " in: " + m);
    }
  }

  @Test
  void aSetterOnARunningInstanceIsTheFleetsAndEveryOtherAdoptsItWithinASecond() {
    WaitingRoom a = room(b -> b);
    WaitingRoom b = room(x -> x);
    a.setTokenTtl(Duration.ofMinutes(10));
    a.setOfferTimeout(Duration.ofSeconds(20));
    a.setAdmissionMode(AdmissionMode.SESSIONS);
    a.setSessionDuration(Duration.ofMinutes(2));
    a.setMaxQueueDepth(50);
    assertEquals(Duration.ofMinutes(5), b.tokenTtl(), "not before b's next sync");
    tick(b);
    assertEquals(Duration.ofMinutes(10), b.tokenTtl());
    assertEquals(Duration.ofSeconds(20), b.offerTimeout());
    assertEquals(AdmissionMode.SESSIONS, b.admissionMode());
    assertEquals(Duration.ofMinutes(2), b.sessionDuration());
    assertEquals(50, b.maxQueueDepth());
    b.setTokenTtl(Duration.ofMinutes(7)); // and back the other way
    tick(a);
    assertEquals(Duration.ofMinutes(7), a.tokenTtl());
    assertEquals(Duration.ofMinutes(7), b.tokenTtl(), "adopting does not undo the setter's own");

    // An instance (re)started with the values it was first configured with is told what changed.
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> room(x -> x));
    assertTrue(e.getMessage().contains("tokenTtl is PT5M here but PT7M"), e.getMessage());
    room(
        x ->
            x.tokenTtl(Duration.ofMinutes(7))
                .offerTimeout(Duration.ofSeconds(20))
                .admissionMode(AdmissionMode.SESSIONS)
                .sessionDuration(Duration.ofMinutes(2))
                .maxQueueDepth(50));
  }

  @Test
  void afterRedisLostTheRoomTheRunningInstancesRecordTheirSettingsAgain() throws Exception {
    RedisLine l = line(Duration.ofSeconds(15));
    l.beat();
    WaitingRoom a = room(l, b -> b.tokenTtl(Duration.ofMinutes(3)));
    tick(a);
    redis.stop();
    redis.restartEmpty();
    RedisLeaseTest.awaitReconnect(l);
    l.beat(); // learns of the loss at its registration
    tick(a);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> room(b -> b));
    assertTrue(
        e.getMessage().contains("tokenTtl is PT5M here but PT3M"),
        "the survivor's settings are the fleet's again: " + e.getMessage());
  }
}
