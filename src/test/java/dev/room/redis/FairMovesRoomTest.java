package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Event;
import dev.room.FakeClock;
import dev.room.PromoteResult;
import dev.room.Snapshot;
import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 13's fairness of moves through the room's API, on both lines: who a payer, a pass holder
 * and a ranked client are called before, and which rank moves are reported.
 */
class FairMovesRoomTest {
  private final FakeClock clock = new FakeClock();
  private final Policy policy = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);
  private RedisServer redis;
  private WaitingRoom room;
  private Line line;

  @AfterEach
  void stop() throws IOException {
    if (room != null) {
      room.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  private void open(boolean onRedis) throws IOException {
    if (onRedis) {
      redis = RedisServer.start();
      line =
          RedisLine.builder(redis.uri(), "moves-" + UUID.randomUUID())
              .clock(clock)
              .manualHeartbeat()
              .build();
    } else {
      line = new InMemoryLine(1);
    }
    room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .line(line)
            .passDuration(Duration.ofHours(1))
            .build();
    room.setRateFunction(depth -> BigDecimal.ONE);
    assertTrue(line.tryEnter(), "the one slot is taken");
  }

  private List<String> queue(int n) {
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long[] t = Tokens.generate();
      long o = line.arrive(t[0], t[1], "client-" + i, false, clock.millis(), policy);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      tokens.add(Tokens.format(t[0], t[1]));
    }
    return tokens;
  }

  /** Frees the slot; returns the client told ready, after letting it in. */
  private String next(List<String> candidates) {
    line.exit(clock.millis());
    String called = null;
    for (String token : candidates) {
      if (room.ticket(token).map(t -> t.position() == 0).orElse(false)) {
        called = token;
      }
    }
    long[] t = {Tokens.hi(called), Tokens.lo(called)};
    assertEquals(Outcome.ADMITTED, Outcome.kind(line.claim(t[0], t[1], clock.millis(), policy)));
    return called;
  }

  @ParameterizedTest(name = "redis={0}")
  @ValueSource(booleans = {false, true})
  void aPayerIsAdmittedAfterTheClientItTiedWith(boolean onRedis) throws IOException {
    open(onRedis);
    List<String> q = queue(4);
    PromoteResult paid = room.promoteTokenToFront(q.get(3));
    assertEquals(new BigDecimal("3"), paid.cost(), "charged for 3 places");
    assertEquals(1, paid.toPosition());
    PromoteResult later = room.promoteTokenToFront(q.get(2));
    assertEquals(1, later.toPosition());
    assertEquals(1, room.ticket(q.get(0)).orElseThrow().position(), "tied clients share 1");
    assertEquals(q.get(3), next(q), "the payer is called first");
    assertEquals(q.get(2), next(q), "a later payer after the earlier one");
    assertEquals(q.get(0), next(q), "the client who held the place after them");
    assertEquals(q.get(1), next(q));
  }

  @ParameterizedTest(name = "redis={0}")
  @ValueSource(booleans = {false, true})
  void aPassHolderIsAdmittedAfterTheClientItTiedWith(boolean onRedis) throws IOException {
    open(onRedis);
    List<String> q = queue(3);
    String pass = room.promoteTokenToFront(q.get(2)).passToken();
    assertEquals(q.get(2), next(q), "the payer goes in");
    // It comes back later with its pass and re-enters at the front.
    long o = line.arrive(Tokens.hi(pass), Tokens.lo(pass), "vip", true, clock.millis(), policy);
    assertTrue(Outcome.has(o, Outcome.PROMOTED));
    assertEquals(1, Outcome.position(o));
    List<String> all = List.of(q.get(0), q.get(1), pass);
    assertEquals(pass, next(all), "the pass holder is called before the client at the front");
    assertEquals(q.get(0), next(all));
  }

  @ParameterizedTest(name = "redis={0}")
  @ValueSource(booleans = {false, true})
  void aLoweredRankStillCountsAsTheOldOne(boolean onRedis) throws IOException {
    open(onRedis);
    List<String> q = queue(4);
    assertTrue(room.setTicketRank(q.get(3), 3));
    assertFalse(room.setTicketRank(q.get(3), 0), "recorded, D does not move back");
    assertEquals(1, room.ticket(q.get(3)).orElseThrow().position());
    assertTrue(room.setTicketRank(q.get(0), 1), "A passes D, whose rank is now 0");
    assertEquals(1, room.ticket(q.get(0)).orElseThrow().position());
    assertEquals(2, room.ticket(q.get(3)).orElseThrow().position());
    assertEquals(q.get(0), next(q));
    assertEquals(q.get(3), next(q));
  }

  @ParameterizedTest(name = "redis={0}")
  @ValueSource(booleans = {false, true})
  void rankingTheFirstInLineReportsAMove(boolean onRedis) throws Exception {
    open(onRedis);
    List<Snapshot> ranks = new CopyOnWriteArrayList<>();
    CountDownLatch promoted = new CountDownLatch(1);
    room.on(Event.RANK, ranks::add);
    room.on(Event.PROMOTE, s -> promoted.countDown());
    List<String> q = queue(3);
    assertFalse(room.setTicketRank(q.get(0), 2), "nobody was passed");
    assertFalse(room.setTicketRank(q.get(1), 1), "behind a higher rank: nobody passed");
    room.adminPromote(q.get(2), 2); // fires PROMOTE after anything the rank calls fired
    assertTrue(promoted.await(5, TimeUnit.SECONDS));
    assertEquals(List.of(), ranks, "no RANK event for a rank that passed nobody");
    assertEquals(2, room.ticket(q.get(0)).orElseThrow().rank(), "the rank is recorded");
  }
}
