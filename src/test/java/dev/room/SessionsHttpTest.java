package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SESSIONS mode over HTTP: offers, claims, grants, expiry, revocation, tampering, rotation. */
class SessionsHttpTest {
  private final FakeClock clock = new FakeClock();
  private final List<Snapshot> events = new CopyOnWriteArrayList<>();
  private WaitingRoom room;
  private JettyHarness jetty;

  /** Echoes the session id; {@code /checkout/done} and {@code /ban} set a Room-Command. */
  static final class ShopServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      if (req.getRequestURI().equals("/checkout/done")) {
        resp.setHeader("Room-Command", "complete");
      } else if (req.getRequestURI().equals("/ban")) {
        resp.addHeader("Room-Command", "revoke");
      }
      resp.getWriter().write("shop:" + req.getAttribute("dev.room.sessionId"));
    }
  }

  @BeforeEach
  void start() throws Exception {
    room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .admissionMode(AdmissionMode.SESSIONS)
            .sessionDuration(Duration.ofMinutes(10))
            .sessionMaxDuration(Duration.ofMinutes(30))
            .offerTimeout(Duration.ofSeconds(30))
            .build();
    for (Event e : Event.values()) {
      room.on(e, events::add);
    }
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(new ShopServlet(), "/*");
    jetty.start();
  }

  @AfterEach
  void stop() {
    jetty.close();
    room.close();
  }

  private String get(Browser b, String path) throws Exception {
    return b.get(jetty.url(path)).body();
  }

  private String status(Browser b) throws Exception {
    clock.advanceMillis(1001);
    return StatusBodies.stable(b.get(jetty.url("/queue/status"), "application/json").body());
  }

  private long count(Event e, String detail) throws InterruptedException {
    assertTrue(room.events().awaitIdle(5000));
    return events.stream().filter(s -> s.event() == e && s.detail().equals(detail)).count();
  }

  /** A shopper holding the only slot. */
  private Browser shopper() throws Exception {
    Browser a = new Browser();
    String body = get(a, "/");
    assertTrue(body.startsWith("shop:") && body.length() == 5 + 32, body);
    assertNotNull(a.cookie("room_session"));
    return a;
  }

  @Test
  void aShopperKeepsItsSlotAcrossRequestsAndTheNextVisitorIsOfferedItOnLeave() throws Exception {
    Browser a = shopper();
    String sid = get(a, "/cart").substring(5);
    for (int i = 0; i < 5; i++) {
      assertEquals("shop:" + sid, get(a, "/item/" + i), "no queueing within a session");
    }
    assertEquals(1, room.activeSessions());
    assertEquals(0, room.inFlight(), "no request is running now");
    assertTrue(
        status(a)
            .startsWith("{\"ready\":true,\"state\":\"active\",\"session_remaining_seconds\":"));

    Browser b = new Browser();
    assertTrue(get(b, "/").contains("aria-live"), "the room is full of shoppers");
    assertEquals("{\"ready\":false,\"state\":\"waiting\",\"position\":1}", status(b));

    HttpResponse<String> leave =
        a.send(
            HttpRequest.newBuilder(URI.create(jetty.url("/queue/status/leave")))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertEquals(204, leave.statusCode());
    assertEquals(0, room.activeSessions());
    assertEquals(1, room.outstandingOffers());
    assertEquals("{\"ready\":true,\"state\":\"offered\",\"position\":0}", status(b));
    String bid = get(b, "/").substring(5);
    assertNotEquals(sid, bid);
    assertEquals(1, room.activeSessions());
    assertEquals(0, room.outstandingOffers());
    assertTrue(get(a, "/").contains("aria-live"), "a left shopper queues again");
    assertEquals(1, count(Event.SESSION_END, "left"));
    assertEquals(1, count(Event.OFFER, ""));
    assertEquals(2, count(Event.CLAIM, ""));
  }

  @Test
  void aRepeatedClaimReturnsTheSameSessionAndConsumesNothing() throws Exception {
    Browser a = shopper();
    Browser b = new Browser();
    get(b, "/");
    room.endSession(get(a, "/").substring(5));
    assertTrue(status(b).contains("offered"));
    String first = get(b, "/");
    String ticket = b.cookie("room_ticket");
    b.clearCookies(); // the response carrying the grant was lost; the browser retries
    b.setCookie(jetty.url("/"), "room_ticket", ticket);
    assertEquals(first, get(b, "/"), "the same session");
    assertNotNull(b.cookie("room_session"), "its grant is sent again");
    assertEquals(1, room.activeSessions());
    assertEquals(0, room.outstandingOffers());
  }

  @Test
  void anUnclaimedOfferExpiresAndTheSlotMovesOn() throws Exception {
    Browser a = shopper();
    Browser b = new Browser();
    Browser c = new Browser();
    get(b, "/");
    get(c, "/");
    room.endSession(get(a, "/x").substring(5));
    assertEquals("{\"ready\":true,\"state\":\"offered\",\"position\":0}", status(b));
    clock.advance(Duration.ofSeconds(31)); // b never comes back
    status(c);
    room.evictExpired();
    assertEquals("{\"ready\":true,\"state\":\"offered\",\"position\":0}", status(c));
    assertTrue(get(c, "/").startsWith("shop:"));
    assertEquals(1, count(Event.TIMEOUT, ""));
    assertEquals(1, count(Event.SESSION_END, "ended"));
  }

  @Test
  void sessionsSlideWithActivityUpToTheirLimitAndExpireWhenTheBrowserVanishes() throws Exception {
    Browser a = shopper();
    for (int i = 0; i < 5; i++) { // 5 × 5 min of activity: alive past the 10 min duration
      clock.advance(Duration.ofMinutes(5));
      assertTrue(get(a, "/").startsWith("shop:"), "minute " + (i + 1) * 5);
    }
    clock.advance(Duration.ofMinutes(5)); // 30 min: the absolute limit
    String again = get(a, "/");
    assertEquals(1, count(Event.GRANT_REJECTED, "expired"));
    assertEquals(1, count(Event.SESSION_EXPIRE, ""), "its slot came back at once");
    assertTrue(again.startsWith("shop:"), "nobody waits, so a new session starts: " + again);

    Browser b = new Browser();
    assertTrue(get(b, "/").contains("aria-live"));
    for (int minute = 0; minute < 11; minute++) { // a vanishes; b keeps polling
      clock.advance(Duration.ofMinutes(1));
      status(b);
    }
    room.evictExpired();
    assertEquals(2, count(Event.SESSION_EXPIRE, ""));
    assertEquals(0, room.activeSessions());
    assertEquals("{\"ready\":true,\"state\":\"offered\",\"position\":0}", status(b));
  }

  @Test
  void theApplicationEndsSessionsWithAResponseHeaderThatNeverReachesTheClient() throws Exception {
    Browser a = shopper();
    HttpResponse<String> done = a.get(jetty.url("/checkout/done"));
    assertTrue(done.headers().firstValue("Room-Command").isEmpty(), "stripped");
    assertEquals(0, room.activeSessions());
    Browser b = shopper();
    b.get(jetty.url("/ban"));
    assertEquals(0, room.activeSessions());
    assertEquals(1, count(Event.SESSION_END, "completed"));
    assertEquals(1, count(Event.SESSION_END, "revoked"));
    assertTrue(get(b, "/").startsWith("shop:"), "a new session: the room had a free slot");
    assertEquals(1, count(Event.GRANT_REJECTED, "revoked"));
  }

  @Test
  void tamperingWithAnyFieldSendsTheVisitorBackToTheLine() throws Exception {
    Browser a = shopper();
    String grant = a.cookie("room_session");
    String[] parts = grant.split("\\.");
    String payload = new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8);
    String[] f = payload.split("\\|");
    for (int i = 0; i < f.length; i++) {
      String[] g = f.clone();
      g[i] = i == 1 ? "k9" : g[i] + "1";
      String forged =
          Base64.getUrlEncoder()
                  .withoutPadding()
                  .encodeToString(String.join("|", g).getBytes(StandardCharsets.UTF_8))
              + "."
              + parts[1];
      Browser m = new Browser();
      m.setCookie(jetty.url("/"), "room_session", forged);
      HttpResponse<String> r = m.get(jetty.url("/"));
      assertEquals(200, r.statusCode(), "field " + i);
      assertTrue(r.body().contains("aria-live"), "field " + i + " forged: " + g[i]);
    }
    Browser flipped = new Browser();
    char c0 = parts[1].charAt(0);
    String badSig = (c0 == 'A' ? 'B' : 'A') + parts[1].substring(1);
    flipped.setCookie(jetty.url("/"), "room_session", parts[0] + "." + badSig);
    assertTrue(get(flipped, "/").contains("aria-live"));
    for (String junk : List.of("x", "a.b.c", "....", "%%%", "Zm9v.YmFy")) {
      Browser j = new Browser();
      j.setCookie(jetty.url("/"), "room_session", junk);
      assertEquals(200, j.get(jetty.url("/")).statusCode());
    }
    assertTrue(count(Event.GRANT_REJECTED, "tampered") >= 6);
    assertTrue(count(Event.GRANT_REJECTED, "foreign") >= 1, "unknown key id");
  }

  @Test
  void grantsSurviveAKeyRotationUntilTheOldKeyIsRemoved() throws Exception {
    room.setSigningKey("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
    room.newSaleGeneration();
    Browser a = shopper();
    room.setSigningKey("k2", "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.UTF_8));
    assertTrue(get(a, "/").startsWith("shop:"), "signed with k1, still verifies");
    assertTrue(room.removeKey("k1"));
    assertTrue(get(a, "/").contains("aria-live"), "k1 removed: refused");
    assertEquals(1, count(Event.GRANT_REJECTED, "foreign"));
  }

  @Test
  void anOlderSaleGenerationIsRefused() throws Exception {
    Browser a = shopper();
    long g = room.newSaleGeneration();
    assertEquals(1, g);
    assertEquals(0, room.activeSessions());
    assertTrue(get(a, "/").startsWith("shop:"), "refused grant; the free slot makes a new one");
    assertEquals(1, count(Event.GRANT_REJECTED, "revoked"));
    assertEquals(1, count(Event.SESSION_END, "generation"));
  }

  @Test
  void aGrantFromAnotherRoomIsForeign() throws Exception {
    byte[] shared = "shared-secret-shared-secret-shared".getBytes(StandardCharsets.UTF_8);
    room.setName("pit");
    room.setSigningKey("s", shared);
    try (WaitingRoom other =
            WaitingRoom.builder()
                .capacity(1)
                .clock(clock)
                .name("balcony")
                .admissionMode(AdmissionMode.SESSIONS)
                .signingKey("s", shared)
                .build();
        JettyHarness second = new JettyHarness()) {
      second.filter(new WaitingRoomFilter(other));
      second.servlet(new ShopServlet(), "/*");
      second.start();
      Browser v = new Browser();
      assertTrue(v.get(second.url("/")).body().startsWith("shop:"));
      String grant = v.cookie("room_session_balcony");
      assertNotNull(grant, "named rooms suffix their cookies");
      Browser thief = new Browser();
      thief.setCookie(jetty.url("/"), "room_session_pit", grant);
      clock.advanceMillis(1);
      get(thief, "/");
      assertEquals(1, count(Event.GRANT_REJECTED, "foreign"));
      assertEquals(200, thief.get(jetty.url("/queue/pit/status"), "application/json").statusCode());
    }
  }

  @Test
  void leaveIsIdempotentAndOnlyAcceptsPost() throws Exception {
    Browser a = shopper();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> r =
          a.send(
              HttpRequest.newBuilder(URI.create(jetty.url("/queue/status/leave")))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build());
      assertEquals(204, r.statusCode());
    }
    assertEquals(405, a.get(jetty.url("/queue/status/leave")).statusCode());
    assertEquals(1, count(Event.SESSION_END, "left"));
    assertFalse(room.endSession("nope"));
  }

  /** Running a sale in SESSIONS admission: a pause stops offers, not the shoppers already in. */
  @Test
  void aPauseStopsNewOffersWhileShoppersCarryOnAndClosedStillLetsThemFinish() throws Exception {
    List<Boolean> failed = new CopyOnWriteArrayList<>();
    room.setCapacityController(
        (now, latency, fail, inFlight, capacity) -> {
          failed.add(fail);
          return capacity;
        });
    Browser a = shopper();
    Browser b = new Browser();
    assertTrue(get(b, "/").contains("aria-live"));
    room.setMode(RoomMode.PAUSED);
    String sid = get(a, "/cart").substring(5);
    assertEquals(32, sid.length(), "the shopper carries on");
    HttpResponse<String> leave =
        a.send(
            HttpRequest.newBuilder(URI.create(jetty.url("/queue/status/leave")))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertEquals(204, leave.statusCode());
    assertEquals(0, room.outstandingOffers(), "the freed slot is not offered while paused");
    assertTrue(status(b).startsWith("{\"ready\":false,\"state\":\"paused\",\"position\":1"));

    room.setMode(RoomMode.OPEN);
    assertEquals("{\"ready\":true,\"state\":\"offered\",\"position\":0}", status(b));
    String bid = get(b, "/").substring(5);
    room.setMode(RoomMode.CLOSED);
    assertEquals("shop:" + bid, get(b, "/checkout"), "a shopper in the middle of it finishes");
    Browser c = new Browser();
    assertEquals(503, c.get(jetty.url("/")).statusCode(), "nobody new");
    assertTrue(failed.size() >= 3, "requests under sessions are health samples too: " + failed);
  }
}
