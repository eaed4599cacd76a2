package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The public API without HTTP: configuration, line management, promotions and passes. */
class RoomApiTest {
  private final FakeClock clock = new FakeClock();
  private final WaitingRoom room =
      WaitingRoom.builder().capacity(1).clock(clock).passDuration(Duration.ofMinutes(90)).build();

  @AfterEach
  void close() {
    room.close();
  }

  /** Queues a client behind the held slot; returns its token. */
  private String queue(String clientKey) {
    long[] t = Tokens.generate();
    String token = Tokens.format(t[0], t[1]);
    long o = room.arrive(t[0], t[1], token, clientKey, false, false);
    assertEquals(Outcome.WAITING, Outcome.kind(o));
    return token;
  }

  private long position(String token) {
    return room.ticket(token).orElseThrow().position();
  }

  @Test
  void settersValidateAndZeroRestoresDefaults() {
    List<Consumer<WaitingRoom>> bad =
        List.of(
            r -> r.setCapacity(0),
            r -> r.setTokenTtl(Duration.ofSeconds(29)),
            r -> r.setTokenTtl(Duration.ofHours(25)),
            r -> r.setTokenTtl(Duration.ofSeconds(-1)),
            r -> r.setReaperInterval(Duration.ofSeconds(4)),
            r -> r.setFirstPollGrace(Duration.ofMillis(500)),
            r -> r.setPassDuration(Duration.ofSeconds(59)),
            r -> r.setMaxQueueDepth(-1),
            r -> r.setQueueFullStatus(500),
            r -> r.setCookiePath("no-slash"),
            r -> r.setCookiePath("/a;b"),
            r -> r.setCookieDomain("evil.com; Path=/"),
            r -> r.setOfferTimeout(Duration.ofHours(2)));
    for (Consumer<WaitingRoom> c : bad) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> c.accept(room));
      assertFalse(e.getMessage().isBlank());
    }
    room.setTokenTtl(Duration.ofMinutes(10));
    room.setTokenTtl(Duration.ZERO);
    assertEquals(WaitingRoom.DEFAULT_TOKEN_TTL, room.tokenTtl());
    room.setReaperInterval(Duration.ZERO);
    assertEquals(WaitingRoom.DEFAULT_REAPER_INTERVAL, room.reaperInterval());
    room.setFirstPollGrace(Duration.ofHours(1)); // above the TTL is accepted
    assertEquals(Duration.ofHours(1), room.firstPollGrace());
    room.setHtml("<p>{{.Position}}</p>");
    assertEquals("<p>{{.Position}}</p>", room.html());
    room.setHtml(null);
    assertTrue(room.html().contains("aria-live"));
    assertThrows(IllegalArgumentException.class, () -> WaitingRoom.create(0));
    assertThrows(IllegalArgumentException.class, () -> WaitingRoom.builder().build());
  }

  @Test
  void anInMemoryLineIsNotPersistedUnlessTheApplicationSaysSo() {
    assertFalse(room.linePersisted(), "a restart loses an in-memory line");
    try (WaitingRoom saved = WaitingRoom.builder().capacity(1).linePersisted(true).build()) {
      assertTrue(saved.linePersisted(), "exported on shutdown and imported on start");
    }
    assertNull(room.currency(), "no currency by default");
  }

  @Test
  void theReaperRunsAtLeastAsOftenAsGraceAndOffersExpire() {
    assertEquals(Duration.ofSeconds(60).toMillis(), room.reaperCadenceMillis(), "offer timeout");
    room.setFirstPollGrace(Duration.ofSeconds(10));
    assertEquals(10_000, room.reaperCadenceMillis(), "first-poll grace");
    room.setFirstPollGrace(Duration.ZERO);
    room.setReaperInterval(Duration.ofSeconds(20));
    assertEquals(20_000, room.reaperCadenceMillis(), "its own interval");
  }

  @Test
  void introspectionReportsSlotsAndLine() {
    assertTrue(room.tryEnter());
    assertEquals(1, room.inFlight());
    assertEquals(1.0, room.utilization());
    queue("a");
    queue("b");
    assertEquals(2, room.queueDepth());
    room.exit();
    assertEquals(1, room.queueDepth());
    assertEquals(2, room.liveQueueDepth());
    assertTrue(room.utilizationSmoothed() >= 0);
  }

  @Test
  void removalFreesThePlaceAndTheRemovedClientIsToldReady() {
    assertTrue(room.tryEnter());
    String a = queue("10.0.0.1");
    String b = queue("10.0.0.2");
    String c = queue("10.0.0.2");
    assertTrue(room.removeToken(b));
    assertFalse(room.removeToken(b));
    assertFalse(room.removeToken("garbage"));
    assertEquals(1, position(a));
    assertEquals(2, position(c));
    assertEquals(2, room.removeTokensIf(t -> t.clientKey().startsWith("10.0.0.")));
    assertEquals(0, room.queueDepth());
    assertEquals(1, room.inFlight(), "nobody admitted early");
  }

  @Test
  void paidPromotionsQuoteChargeAndGrantPasses() {
    assertTrue(room.tryEnter());
    String x = queue("x");
    assertThrows(IllegalStateException.class, () -> room.quoteCost(x, 1));
    room.setRateFunction(depth -> new BigDecimal("2.50"));
    List<String> line = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      line.add(queue(""));
    }
    String last = line.get(9);
    String rank = String.valueOf(position(last));
    assertEquals("11", rank);
    assertEquals(new BigDecimal("25.00"), room.quoteCost(last, 1));
    assertEquals(11, position(last), "quotes move nothing");
    PromoteResult r = room.promoteTokenToFront(last);
    assertEquals(new BigDecimal("25.00"), r.cost());
    assertEquals(11, r.fromPosition());
    assertEquals(1, r.toPosition());
    assertEquals(32, r.passToken().length());
    assertTrue(room.hasValidPass(r.passToken()));
    assertFalse(r.toString().contains(r.passToken()));
    PromoteResult none = room.promoteToken(line.get(0), 5);
    assertEquals(BigDecimal.ZERO, none.cost());
    assertEquals(none.fromPosition(), none.toPosition());
    assertEquals("", none.passToken());
    assertThrows(IllegalArgumentException.class, () -> room.promoteToken(last, 0));
    assertThrows(TokenNotFoundException.class, () -> room.promoteToken("nope", 1));
    assertThrows(TokenNotFoundException.class, () -> room.promoteToken(Tokens.format(1, 2), 1));
    clock.advance(Duration.ofMinutes(91));
    assertFalse(room.hasValidPass(r.passToken()), "passes expire on the server");
  }

  @Test
  void operatorMovesAndRanksNeedNoPricing() {
    assertTrue(room.tryEnter());
    String a = queue("");
    String b = queue("");
    String c = queue("");
    room.adminPromote(c, 1);
    assertEquals(1, position(c));
    assertEquals(1, position(a), "tied with the client already there");
    assertTrue(room.setTicketRank(b, 3));
    assertEquals(1, position(b));
    assertEquals(2, position(a));
    assertEquals(3, room.ticket(b).orElseThrow().rank());
    assertThrows(IllegalArgumentException.class, () -> room.setTicketRank(a, -1));
    assertThrows(IllegalArgumentException.class, () -> room.adminPromote(a, 0));
    assertThrows(TokenNotFoundException.class, () -> room.adminPromote("x", 1));
  }

  @Test
  void lineEventsCarryTheClientKeyAndRecordsRedactTokens() throws Exception {
    List<Snapshot> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    room.on(Event.PROMOTE, seen::add);
    room.on(Event.RANK, seen::add);
    room.on(Event.REMOVE, seen::add);
    assertTrue(room.tryEnter());
    queue("first");
    String b = queue("10.1.1.1");
    String c = queue("10.2.2.2");
    room.adminPromote(b, 1);
    room.setTicketRank(c, 1);
    room.removeToken(b);
    assertTrue(room.events().awaitIdle(5000));
    assertEquals(
        List.of("PROMOTE 10.1.1.1", "RANK 10.2.2.2", "REMOVE 10.1.1.1"),
        seen.stream().map(s -> s.event() + " " + s.clientKey()).toList());
    TicketInfo info = room.ticket(c).orElseThrow();
    assertFalse(info.toString().contains(c), "TicketInfo.toString redacts the token");
  }

  @Test
  void quotedCookieValuesAreUnquoted() {
    assertEquals("abc", Cookies.unquote("\"abc\""));
    assertEquals("\"", Cookies.unquote("\""));
    assertEquals("abc", Cookies.unquote("abc"));
  }

  @Test
  void passesAreOffByDefaultAndSweptByTheReaper() {
    try (WaitingRoom plain = WaitingRoom.builder().capacity(1).clock(clock).build()) {
      assertEquals("", plain.grantPass());
    }
    String pass = room.grantPass();
    assertTrue(room.hasValidPass(pass));
    clock.advance(Duration.ofMinutes(90));
    room.evictExpired();
    assertFalse(room.hasValidPass(pass));
    assertFalse(room.hasValidPass("not-a-pass"));
  }

  /**
   * Regression: close() interrupted the reaper and event threads without waiting for them, so a
   * container undeploying the application logged threads it had failed to stop.
   */
  @Test
  void closeWaitsForEveryThreadItStarted() {
    java.util.Set<Thread> before = RoomThreads.now();
    WaitingRoom r = WaitingRoom.builder().capacity(1).clock(clock).build();
    java.util.concurrent.CountDownLatch handling = new java.util.concurrent.CountDownLatch(1);
    r.on(Event.ENTER, s -> RoomThreads.busyHandler(handling));
    assertTrue(r.tryEnter());
    List<Thread> mine = RoomThreads.startedSince(before);
    assertEquals(2, mine.size(), "the reaper and the event thread: " + mine);
    RoomThreads.await(handling);
    r.close(); // while a handler is still running
    for (Thread t : mine) {
      assertFalse(t.isAlive(), t.getName() + " still alive after close()");
    }
  }

  /**
   * A line that keeps no identities (a custom {@code spi.Line}) would fail every visitor's arrival
   * once an identity function is set: the room refuses the function instead, when it is set.
   */
  @Test
  void anAdmissionRateOverALineThatKeepsNoBucketIsRefusedWithWhatToDo() {
    dev.room.engine.InMemoryLine inner = new dev.room.engine.InMemoryLine(2);
    dev.room.spi.Line plain =
        (dev.room.spi.Line)
            java.lang.reflect.Proxy.newProxyInstance(
                dev.room.spi.Line.class.getClassLoader(),
                new Class<?>[] {dev.room.spi.Line.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("meter") || method.getName().equals("refill")) {
                    return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                  }
                  try {
                    return method.invoke(inner, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    try (WaitingRoom r = WaitingRoom.builder().capacity(2).line(plain).build()) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> r.setAdmissionRate(5));
      assertTrue(e.getMessage().contains("implement Line.meter and Line.refill"), e.getMessage());
      r.setAdmissionRate(0); // no rate is always fine
      assertTrue(r.tryEnter(), "the room still admits on capacity alone");
    }
  }

  @Test
  void anIdentityFunctionOverALineThatKeepsNoIdentitiesIsRefusedWhenSet() {
    dev.room.engine.InMemoryLine inner = new dev.room.engine.InMemoryLine(2);
    dev.room.spi.Line plain =
        (dev.room.spi.Line)
            java.lang.reflect.Proxy.newProxyInstance(
                dev.room.spi.Line.class.getClassLoader(),
                new Class<?>[] {dev.room.spi.Line.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("keepsIdentities")) {
                    return false;
                  }
                  try {
                    return method.invoke(inner, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    try (WaitingRoom r = WaitingRoom.builder().capacity(2).line(plain).build()) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> r.setIdentityFunction(q -> "alice"));
      assertTrue(e.getMessage().contains("keeps no identities"), e.getMessage());
      r.setIdentityFunction(null); // turning it off is always fine
      assertNull(r.identityFunction());
    }
    try (WaitingRoom r = WaitingRoom.builder().capacity(2).build()) {
      r.setIdentityFunction(q -> "alice");
      assertTrue(r.identityFunction() != null, "the in-memory line keeps identities");
    }
    // An export that binds tickets to identities cannot go into such a line unnoticed.
    dev.room.engine.InMemoryLine source = new dev.room.engine.InMemoryLine(1);
    assertTrue(source.tryEnter());
    long[] t = Tokens.generate();
    source.arrive(
        t[0],
        t[1],
        "alice",
        "",
        false,
        0,
        new dev.room.spi.Policy(300_000, 0, 1000, 100, 60_000, 0));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (WaitingRoom from = WaitingRoom.builder().line(source).build();
        WaitingRoom to =
            WaitingRoom.builder()
                .capacity(2)
                .line(plain(new dev.room.engine.InMemoryLine(2)))
                .build()) {
      from.exportTo(out);
      Exception e =
          assertThrows(
              IllegalStateException.class,
              () -> to.importFrom(new java.io.ByteArrayInputStream(out.toByteArray())));
      assertTrue(e.getMessage().contains("keeps no identities"), e.getMessage());
      assertEquals(0, to.queueDepth(), "and nothing was restored");
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static dev.room.spi.Line plain(dev.room.engine.InMemoryLine inner) {
    return (dev.room.spi.Line)
        java.lang.reflect.Proxy.newProxyInstance(
            dev.room.spi.Line.class.getClassLoader(),
            new Class<?>[] {dev.room.spi.Line.class},
            (proxy, method, args) -> {
              if (method.getName().equals("keepsIdentities")) {
                return false;
              }
              if (method.getName().equals("restore") && args.length == 4) {
                return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
              }
              try {
                return method.invoke(inner, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
