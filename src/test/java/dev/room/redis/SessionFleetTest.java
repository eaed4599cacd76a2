package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.AdmissionMode;
import dev.room.Browser;
import dev.room.FakeClock;
import dev.room.JettyHarness;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SESSIONS mode across three instances (each its own {@link WaitingRoom}, {@link RedisLine} and
 * embedded Jetty) on one Redis room, with every request of a visitor on a different instance: one
 * session per visitor, the slots Redis holds = sessions + offers ≤ capacity, and revocation, {@code
 * endSession} and {@code newSaleGeneration} from any instance honoured by all within one poll
 * interval. {@code activeSessions()} and {@code outstandingOffers()} agree on every instance with
 * what Redis holds, at every step.
 */
class SessionFleetTest {
  private static final int CAPACITY = 2;
  private static final Duration POLL = Duration.ofMillis(RedisSessionStore.STALE_MILLIS);

  /** Echoes the session id; {@code /ban} revokes the session. */
  static final class Shop extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      if (req.getRequestURI().equals("/ban")) {
        res.addHeader("Room-Command", "revoke");
      }
      res.getWriter().write("shop:" + req.getAttribute("dev.room.sessionId"));
    }
  }

  private final FakeClock clock = new FakeClock(1_764_000_000_777L);
  private final List<RedisLine> lines = new ArrayList<>();
  private final List<WaitingRoom> rooms = new ArrayList<>();
  private final List<JettyHarness> servers = new ArrayList<>();
  private RedisServer redis;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private String prefix;
  private int next;

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
    String roomId = "fleet-" + UUID.randomUUID();
    prefix = "{room:" + roomId + "}:";
    for (int n = 0; n < 3; n++) {
      RedisLine line =
          RedisLine.builder(redis.uri(), roomId)
              .clock(clock)
              .instanceName("instance-" + n)
              .manualHeartbeat()
              .build();
      line.beat();
      WaitingRoom room =
          WaitingRoom.builder()
              .capacity(CAPACITY)
              .clock(clock)
              .line(line)
              .admissionMode(AdmissionMode.SESSIONS)
              .build();
      JettyHarness jetty = new JettyHarness();
      jetty.filter(new WaitingRoomFilter(room));
      jetty.servlet(new Shop(), "/*");
      jetty.start();
      lines.add(line);
      rooms.add(room);
      servers.add(jetty);
    }
    client = RedisClient.create(redis.uri());
    connection = client.connect();
  }

  @AfterEach
  void stop() throws IOException {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    for (int n = 0; n < servers.size(); n++) {
      servers.get(n).close();
      rooms.get(n).close();
    }
    connection.close();
    client.shutdown();
    redis.close();
  }

  /** The next instance round robin: no two requests in a row on one instance. */
  private int nextInstance() {
    return next++ % 3;
  }

  private String get(Browser b, String path) throws Exception {
    return b.get(servers.get(nextInstance()).url(path)).body();
  }

  private String get(Browser b, int instance, String path) throws Exception {
    return b.get(servers.get(instance).url(path)).body();
  }

  /** Time passes and every instance heartbeats, as its thread would. */
  private void advance(Duration d) {
    clock.advance(d);
    for (RedisLine l : lines) {
      l.beat();
    }
  }

  /**
   * What Redis holds agrees with every instance: the sessions counted, the slots held for them, and
   * slots in use = requests + sessions, with sessions + offers within capacity.
   */
  private void checkFleet(int sessions, int offers) {
    RedisCommands<String, String> r = connection.sync();
    assertEquals(sessions, r.zcard(prefix + "sesx").intValue(), "sessions in Redis");
    assertEquals(sessions, number(r.hget(prefix + "meta", "sesheld")), "slots held for sessions");
    int held = 0;
    for (String h : r.hvals(prefix + "held")) {
      held += Integer.parseInt(h);
    }
    assertEquals(0, held, "no request is running: every slot in use is a session's");
    assertEquals(sessions, number(r.hget(prefix + "meta", "inflight")), "slots in use");
    assertEquals(offers, r.zcard(prefix + "ready").intValue(), "offers in Redis");
    assertTrue(sessions + offers <= CAPACITY, "slots = sessions + offers ≤ capacity");
    for (int n = 0; n < rooms.size(); n++) {
      assertEquals(sessions, rooms.get(n).activeSessions(), "activeSessions() on " + n);
      assertEquals(offers, rooms.get(n).outstandingOffers(), "outstandingOffers() on " + n);
    }
    for (RedisLine l : lines) {
      l.checkInvariants();
    }
  }

  private static int number(String s) {
    return s == null ? 0 : Integer.parseInt(s);
  }

  /** A visitor let in at once, its first request on some instance; returns its session id. */
  private String shopper(Browser b) throws Exception {
    String body = get(b, "/");
    assertTrue(body.startsWith("shop:") && body.length() == 5 + 32, body);
    return body.substring(5);
  }

  @Test
  void aVisitorOnEveryInstanceInTurnHoldsOneSession() throws Exception {
    Browser v = new Browser();
    String id = shopper(v);
    checkFleet(1, 0);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      seen.add(get(v, "/item/" + i));
      checkFleet(1, 0);
      advance(Duration.ofMillis(700)); // the grant slides and is re-sent by whichever instance
    }
    assertEquals(Set.of("shop:" + id), seen, "one session, honoured by every instance");

    Browser w = new Browser();
    String other = shopper(w);
    checkFleet(2, 0);
    Browser x = new Browser();
    assertFalse(get(x, "/").startsWith("shop:"), "the room is full: x waits");
    assertEquals(1, rooms.get(0).queueDepth());
    for (int i = 0; i < 6; i++) {
      assertEquals("shop:" + other, get(w, "/"), "on instance " + (next - 1) % 3);
    }
    checkFleet(2, 0);
  }

  @Test
  void aRevocationOnOneInstanceIsHonouredByAllWithinAPollInterval() throws Exception {
    Browser v = new Browser();
    String id = shopper(v);
    for (int n = 0; n < 3; n++) {
      assertEquals("shop:" + id, get(v, n, "/warm")); // every instance has seen the session
    }
    Browser x = new Browser();
    shopper(x);
    Browser y = new Browser();
    assertFalse(get(y, 2, "/").startsWith("shop:"));
    checkFleet(2, 0);

    get(v, 1, "/ban"); // instance 1 revokes
    checkFleet(1, 1); // its slot went to y, waiting: an offer
    assertFalse(get(v, 1, "/").startsWith("shop:"), "refused at once where it was revoked");
    advance(POLL);
    assertFalse(get(v, 0, "/").startsWith("shop:" + id), "refused within a poll interval");
    assertFalse(get(v, 2, "/").startsWith("shop:" + id), "refused within a poll interval");

    String body = get(y, 0, "/"); // y claims its offer on another instance than it joined on
    assertTrue(body.startsWith("shop:"), body);
    checkFleet(2, 0);
  }

  @Test
  void endSessionOnAnyInstanceEndsItForTheFleetOnce() throws Exception {
    Browser v = new Browser();
    String id = shopper(v);
    for (int n = 0; n < 3; n++) {
      get(v, n, "/warm");
    }
    assertTrue(rooms.get(2).endSession(id), "ended from an instance that did not start it");
    assertFalse(rooms.get(0).endSession(id), "already ended, fleet-wide");
    assertFalse(rooms.get(1).endSession(id));
    checkFleet(0, 0);
    advance(POLL);
    for (int n = 0; n < 3; n++) {
      assertFalse(get(v, n, "/").startsWith("shop:" + id), "instance " + n);
    }
  }

  @Test
  void aNewSaleGenerationOnOneInstanceEndsEverySessionOnAll() throws Exception {
    Browser v = new Browser();
    Browser w = new Browser();
    String a = shopper(v);
    String b = shopper(w);
    checkFleet(2, 0);
    assertEquals(1, rooms.get(1).newSaleGeneration());
    checkFleet(0, 0);
    advance(POLL);
    for (int n = 0; n < 3; n++) {
      assertEquals(1, rooms.get(n).saleGeneration(), "instance " + n);
    }
    String again = get(v, 0, "/");
    assertTrue(again.startsWith("shop:") && !again.equals("shop:" + a), "a new session: " + again);
    assertFalse(get(w, 2, "/").equals("shop:" + b));
    checkFleet(2, 0);
    String id = again.substring(5);
    for (int n = 0; n < 3; n++) {
      assertEquals("shop:" + id, get(v, n, "/"), "the new generation's grant on " + n);
    }
  }
}
