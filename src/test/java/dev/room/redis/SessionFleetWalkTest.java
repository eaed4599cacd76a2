package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.AdmissionMode;
import dev.room.Browser;
import dev.room.FakeClock;
import dev.room.JettyHarness;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A seeded random walk of SESSIONS-mode traffic over three instances (each its own room, {@link
 * RedisLine} and Jetty) on one Redis room, one JVM, a fake clock: arrivals, polls, offers and their
 * lapse, claims, renewals, expiries, revocations, leaves, {@code endSession} and {@code
 * newSaleGeneration}, each on a random instance. After every step {@code activeSessions()} on every
 * instance equals the sessions Redis holds and the slots it holds for them, {@code
 * outstandingOffers()} its offers, and sessions + offers stay within capacity.
 */
class SessionFleetWalkTest {
  private static final int CAPACITY = 3;
  private static final String STATUS = WaitingRoomFilter.DEFAULT_STATUS_PATH;

  /** Echoes the session id; {@code /ban} revokes the session. */
  private static final SessionFleetTest.Shop SHOP = new SessionFleetTest.Shop();

  private final FakeClock clock = new FakeClock(1_764_000_000_123L);
  private final List<RedisLine> lines = new ArrayList<>();
  private final List<WaitingRoom> rooms = new ArrayList<>();
  private final List<JettyHarness> servers = new ArrayList<>();
  private RedisServer redis;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private String prefix;

  private void start() throws Exception {
    redis = RedisServer.start();
    String roomId = "walk-" + UUID.randomUUID();
    prefix = "{room:" + roomId + "}:";
    for (int n = 0; n < 3; n++) {
      RedisLine line =
          RedisLine.builder(redis.uri(), roomId)
              .clock(clock)
              .instanceName("instance-" + n)
              .manualHeartbeat()
              .build();
      line.beat();
      // The reaper's own thread runs on real time: with these settings its first pass is an hour
      // away, so every sweep in the walk is one of its steps and no check races one.
      WaitingRoom room =
          WaitingRoom.builder()
              .capacity(CAPACITY)
              .clock(clock)
              .line(line)
              .admissionMode(AdmissionMode.SESSIONS)
              .tokenTtl(Duration.ofHours(24))
              .reaperInterval(Duration.ofHours(24))
              .offerTimeout(Duration.ofHours(1))
              .sessionDuration(Duration.ofSeconds(30))
              .sessionMaxDuration(Duration.ofSeconds(90))
              .build();
      JettyHarness jetty = new JettyHarness();
      jetty.filter(new WaitingRoomFilter(room));
      jetty.servlet(SHOP, "/*");
      jetty.start();
      lines.add(line);
      rooms.add(room);
      servers.add(jetty);
    }
    client = RedisClient.create(redis.uri());
    connection = client.connect();
  }

  @AfterEach
  void stop() throws Exception {
    for (int n = 0; n < servers.size(); n++) {
      servers.get(n).close();
      rooms.get(n).close();
    }
    if (connection != null) {
      connection.close();
      client.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2})
  void activeSessionsOnEveryInstanceAgreeWithRedisAtEveryStep(long seed) throws Exception {
    start();
    new Walk(seed).run(200);
  }

  private final class Walk {
    final long seed;
    final Random rnd;
    final List<Browser> visitors = new ArrayList<>();
    final List<String> sessionIds = new ArrayList<>();
    final ArrayDeque<String> recent = new ArrayDeque<>();

    Walk(long seed) {
      this.seed = seed;
      this.rnd = new Random(seed);
    }

    void run(int steps) throws Exception {
      for (int step = 0; step < steps; step++) {
        int dice = rnd.nextInt(100);
        recent.addLast(dice + "@" + clock.millis() % 1_000_000);
        if (recent.size() > 12) {
          recent.removeFirst();
        }
        try {
          act(dice);
          check();
        } catch (AssertionError | Exception e) {
          throw new AssertionError("seed " + seed + ", step " + step + " after " + recent, e);
        }
      }
      assertTrue(sessionIds.size() >= 10, "the walk started sessions: " + sessionIds.size());
    }

    void act(int dice) throws Exception {
      if (visitors.isEmpty() || dice < 12 && visitors.size() < 8) {
        Browser b = new Browser();
        visitors.add(b);
        visit(b, "/");
      } else if (dice < 40) {
        visit(any(), "/item"); // a claim if offered, a renewal if shopping, else the waiting page
      } else if (dice < 52) {
        any().get(server().url(STATUS), "application/json"); // a poll: an offer, or its lapse
      } else if (dice < 57) {
        visit(any(), "/ban"); // Room-Command: revoke
      } else if (dice < 63) {
        if (!sessionIds.isEmpty()) {
          room().endSession(sessionIds.get(rnd.nextInt(sessionIds.size())));
        }
      } else if (dice < 67) {
        any()
            .send(
                HttpRequest.newBuilder(URI.create(server().url(STATUS + "/leave")))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build());
      } else if (dice < 79) {
        advance(200 + rnd.nextInt(1500));
      } else if (dice < 82) {
        advance(31_000 + rnd.nextInt(60_000)); // sessions expire (30 s idle, 90 s at most)
      } else if (dice < 86) {
        advance(Duration.ofHours(1).toMillis() + 1); // and offers lapse
      } else if (dice < 95) {
        room().evictExpired(); // the reaper's pass on one instance: expiries swept
      } else if (dice < 97) {
        room().newSaleGeneration();
      } else {
        visitors.remove(rnd.nextInt(visitors.size())); // a browser closed for good
      }
    }

    void visit(Browser b, String path) throws Exception {
      String body = b.get(server().url(path)).body();
      if (body.startsWith("shop:")) {
        String id = body.substring(5);
        if (!sessionIds.contains(id)) {
          sessionIds.add(id);
        }
      }
    }

    Browser any() {
      return visitors.get(rnd.nextInt(visitors.size()));
    }

    JettyHarness server() {
      return servers.get(rnd.nextInt(servers.size()));
    }

    WaitingRoom room() {
      return rooms.get(rnd.nextInt(rooms.size()));
    }

    /** Time passes and every instance heartbeats, as its thread would. */
    void advance(long millis) {
      clock.advanceMillis(millis);
      for (RedisLine l : lines) {
        l.beat();
      }
    }

    void check() {
      // One atomic read of what Redis holds for sessions and offers.
      List<Object> r =
          connection
              .sync()
              .eval(
                  "return {redis.call('ZCARD', KEYS[1]), redis.call('HLEN', KEYS[2]),"
                      + " tonumber(redis.call('HGET', KEYS[3], 'sesheld')) or 0,"
                      + " tonumber(redis.call('HGET', KEYS[3], 'inflight')) or 0,"
                      + " redis.call('ZCARD', KEYS[4])}",
                  ScriptOutputType.MULTI,
                  prefix + "sesx",
                  prefix + "ses",
                  prefix + "meta",
                  prefix + "ready");
      int sessions = ((Long) r.get(0)).intValue();
      int offers = ((Long) r.get(4)).intValue();
      assertEquals(sessions, ((Long) r.get(1)).intValue(), "session records = expiry index");
      assertEquals(sessions, ((Long) r.get(2)).intValue(), "slots Redis holds for sessions");
      assertEquals(
          sessions, ((Long) r.get(3)).intValue(), "no request runs: every slot a session's");
      assertTrue(sessions + offers <= CAPACITY, sessions + " sessions + " + offers + " offers");
      for (int n = 0; n < rooms.size(); n++) {
        assertEquals(sessions, rooms.get(n).activeSessions(), "activeSessions() on " + n);
        assertEquals(offers, rooms.get(n).outstandingOffers(), "outstandingOffers() on " + n);
      }
      for (RedisLine l : lines) {
        l.checkInvariants();
      }
    }
  }
}
