package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.TicketInfo;
import dev.room.WaitingRoom;
import dev.room.engine.PresaleDraw;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pre-sale across a fleet (issue 15): three rooms (three app instances) on one Redis room, one
 * JVM, a fake clock. The schedule, the commitment and the seed set on one are in force on all
 * within a second; the draw happens once, by whichever instance reaches the opening first.
 */
class PresaleFleetTest {
  private static final Policy POLICY = new Policy(3_600_000, 0, 1000, 100_000, 60_000, 0);

  private final FakeClock clock = new FakeClock();
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private String id;
  private final List<RedisLine> lines = new ArrayList<>();
  private final List<WaitingRoom> rooms = new ArrayList<>();

  @BeforeEach
  void start() {
    id = "presale-fleet-" + UUID.randomUUID();
    for (int i = 0; i < 3; i++) {
      join(i == 0 ? 2 : 0, null);
    }
  }

  @AfterEach
  void stop() {
    rooms.forEach(WaitingRoom::close);
  }

  private WaitingRoom join(int capacity, Instant presale) {
    RedisLine line =
        RedisLine.builder(redis.uri(), id).clock(clock).leaseTtl(Duration.ofMinutes(10)).build();
    WaitingRoom.Builder b =
        WaitingRoom.builder().line(line).clock(clock).tokenTtl(Duration.ofHours(1));
    if (capacity > 0) {
      b.capacity(capacity);
    }
    if (presale != null) {
      b.schedulePresale(presale);
    }
    lines.add(line);
    WaitingRoom r = b.build();
    rooms.add(r);
    return r;
  }

  private WaitingRoom room(int i) {
    return rooms.get(i);
  }

  /** A second on the fake clock and a pass by every room: each has synced with the fleet. */
  private void aSecondPasses() {
    clock.advance(Duration.ofMillis(1001));
    rooms.forEach(WaitingRoom::evictExpired);
  }

  private List<String> arrive(int n) {
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Line line = lines.get(i % lines.size());
      long[] t = Tokens.generate();
      long o = line.arrive(t[0], t[1], "", false, clock.millis(), POLICY);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      tokens.add(Tokens.format(t[0], t[1]));
    }
    return tokens;
  }

  /** Regression (issue 15): the pre-sale schedule, seed and draw were per instance. */
  @Test
  void thePresaleScheduledOnOneInstanceIsInForceOnAllAndDrawnOnce() {
    Instant opens = clock.instant().plus(Duration.ofMinutes(5));
    room(0).schedulePresale(opens);
    String hash = room(0).presaleSeedHash();
    aSecondPasses();
    for (WaitingRoom r : rooms) {
      assertEquals(Optional.of(opens), r.presaleOpensAt(), "scheduled on every instance");
      assertEquals(hash, r.presaleSeedHash(), "one commitment for the fleet");
      assertEquals(Optional.empty(), r.presaleSeed(), "and the seed still secret");
    }
    List<String> arrivals = arrive(12);
    aSecondPasses();
    assertEquals(0, lines.get(1).ready(), "held until the opening on every instance");

    clock.advance(Duration.ofMinutes(5));
    room(2).evictExpired(); // the first pass at or after the opening, on the third instance
    String seed = room(2).presaleSeed().orElseThrow();
    assertEquals(hash, PresaleDraw.sha256Hex(HexFormat.of().parseHex(seed)));
    List<String> expected = new ArrayList<>();
    for (int i : PresaleDraw.order(HexFormat.of().parseHex(seed), arrivals.size())) {
      expected.add(arrivals.get(i));
    }
    List<String> drawnOrder = queue();
    assertEquals(expected.subList(2, 12), drawnOrder.subList(2, 12), "the drawn order");
    room(0).evictExpired();
    room(1).evictExpired();
    assertEquals(drawnOrder, queue(), "drawn once: the others' passes move nobody again");
    for (WaitingRoom r : rooms) {
      assertEquals(Optional.of(seed), r.presaleSeed(), "every instance reveals the one seed");
    }
    assertEquals(2, lines.get(0).ready(), "and admission runs: the first two drawn are ready");
    assertTrue(
        expected.subList(0, 2).containsAll(drawnOrder.subList(0, 2)), "ready: the first drawn");
    assertThrows(
        IllegalStateException.class,
        () -> room(1).schedulePresale(null),
        "the draw took place, for every instance");
  }

  private List<String> queue() {
    return lines.get(1).queue(100).stream().map(TicketInfo::token).toList();
  }

  @Test
  void aMoveOrACancelOnAnyInstanceIsTheFleets() {
    Instant opens = clock.instant().plus(Duration.ofMinutes(5));
    room(0).schedulePresale(opens);
    String hash = room(0).presaleSeedHash();
    aSecondPasses();
    Instant later = opens.plus(Duration.ofMinutes(1));
    room(1).schedulePresale(later);
    aSecondPasses();
    assertEquals(Optional.of(later), room(2).presaleOpensAt());
    assertEquals(Optional.of(later), room(0).presaleOpensAt());
    assertEquals(hash, room(2).presaleSeedHash(), "a move keeps the commitment");

    room(2).schedulePresale(null);
    aSecondPasses();
    for (WaitingRoom r : rooms) {
      assertEquals(Optional.empty(), r.presaleOpensAt(), "cancelled everywhere");
      assertEquals("", r.presaleSeedHash());
    }
    long[] t = Tokens.generate();
    long o = lines.get(0).arrive(t[0], t[1], "", false, clock.millis(), POLICY);
    assertEquals(Outcome.ADMITTED, Outcome.kind(o), "and nothing holds admission any more");
    lines.get(0).exit(clock.millis());
  }

  @Test
  void anInstanceThatStartsDuringAPresaleJoinsItAsItIs() {
    Instant opens = clock.instant().plus(Duration.ofMinutes(5));
    room(0).schedulePresale(opens);
    String hash = room(0).presaleSeedHash();
    WaitingRoom late = join(0, opens.plus(Duration.ofHours(1)));
    assertEquals(Optional.of(opens), late.presaleOpensAt(), "its own setting seeds none");
    assertEquals(hash, late.presaleSeedHash());
    List<String> arrivals = arrive(4);
    clock.advance(Duration.ofMinutes(5));
    late.evictExpired(); // the newcomer may be the one that draws
    assertTrue(late.presaleSeed().isPresent());
    room(0).evictExpired();
    assertEquals(late.presaleSeed(), room(0).presaleSeed());
    assertEquals(arrivals.size(), queue().size(), "everyone still in line (ready ones first)");
    room(1).evictExpired();
    assertEquals(late.presaleSeed(), room(1).presaleSeed());
  }

  /**
   * Redis restarted without persistence: the pre-sale is lost with the room, and the fleet sets it
   * again, with its seed, at its next sync, so the commitment published still holds.
   */
  @Test
  void aPresaleRedisLostIsSetAgainByTheFleetWithItsSeed() throws Exception {
    Instant opens = clock.instant().plus(Duration.ofMinutes(5));
    room(1).schedulePresale(opens);
    String hash = room(1).presaleSeedHash();
    aSecondPasses();
    redis.stop();
    redis.restartEmpty();
    for (RedisLine l : lines) {
      RedisLeaseTest.awaitReconnect(l);
    }
    aSecondPasses();
    WaitingRoom late = join(0, null);
    assertEquals(Optional.of(opens), late.presaleOpensAt(), "in Redis again");
    assertEquals(hash, late.presaleSeedHash(), "with the seed committed to");
    List<String> arrivals = arrive(3);
    clock.advance(Duration.ofMinutes(5));
    rooms.forEach(WaitingRoom::evictExpired);
    String seed = late.presaleSeed().orElseThrow();
    assertEquals(hash, PresaleDraw.sha256Hex(HexFormat.of().parseHex(seed)));
    for (WaitingRoom r : rooms) {
      assertEquals(Optional.of(seed), r.presaleSeed());
    }
    assertEquals(arrivals.size(), queue().size());
  }
}
