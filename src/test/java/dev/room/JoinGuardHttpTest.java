package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The join limit and the proof-of-work challenge over real HTTP on an embedded Jetty. */
class JoinGuardHttpTest {
  /** Twenty seconds before a minute's end. */
  private final FakeClock clock = new FakeClock(1_767_225_540_000L + 40_000);

  private WaitingRoom room;
  private JettyHarness jetty;

  private void start(WaitingRoom.Builder b) throws Exception {
    room = b.clock(clock).mode(RoomMode.QUEUE_ALL).build(); // every newcomer needs a ticket
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(new ParkingServlet(), "/*");
    jetty.start();
  }

  @AfterEach
  void stop() {
    if (jetty != null) {
      jetty.close();
    }
    if (room != null) {
      room.close();
    }
  }

  @Test
  void beyondTheJoinLimitAnArrivalGets429WithRetryAfterAndNoTicket() throws Exception {
    start(WaitingRoom.builder().capacity(1).joinLimit(2));
    assertEquals(2, room.joinLimit());
    for (int i = 0; i < 2; i++) {
      Browser b = new Browser();
      assertEquals(200, b.get(jetty.url("/shop")).statusCode());
      assertNotNull(b.cookie("room_ticket"), "a household member gets a place of its own");
    }
    Browser third = new Browser();
    HttpResponse<String> r = third.get(jetty.url("/shop"));
    assertEquals(429, r.statusCode());
    assertEquals("20", r.headers().firstValue("Retry-After").orElse(""));
    assertTrue(r.body().contains(GuardPages.LIMITED_TITLE));
    assertTrue(r.body().contains("try again in 20 seconds"), r.body());
    assertNull(third.cookie("room_ticket"), "no ticket");
    HttpResponse<String> json = third.get(jetty.url("/shop"), "application/json");
    assertEquals(429, json.statusCode());
    assertEquals("{\"ready\":false,\"join_limited\":true,\"retry_after_seconds\":20}", json.body());
    assertEquals(2, room.liveQueueDepth(), "the refused took no place");
    assertEquals(2, room.joinsRefused());

    clock.advanceMillis(20_000); // the next minute
    assertEquals(200, third.get(jetty.url("/shop")).statusCode());
    assertNotNull(third.cookie("room_ticket"));
    assertEquals(3, room.liveQueueDepth());
  }

  @Test
  void aVisitorInLineIsNotCountedAgain() throws Exception {
    start(WaitingRoom.builder().capacity(1).joinLimit(1));
    Browser b = new Browser();
    assertEquals(200, b.get(jetty.url("/")).statusCode());
    for (int i = 0; i < 3; i++) {
      clock.advanceMillis(1_500); // past the poll interval: a reload, not a too-fast one
      assertEquals(200, b.get(jetty.url("/")).statusCode(), "its own ticket, reloaded");
    }
    assertEquals(0, room.joinsRefused());
  }

  @Test
  void theLimitCountsByTheClientKey() throws Exception {
    start(
        WaitingRoom.builder()
            .capacity(1)
            .joinLimit(1)
            .clientKeyFunction(req -> req.getHeader("X-Client")));
    assertEquals(200, new Browser().send(get("/", "alice")).statusCode());
    assertEquals(429, new Browser().send(get("/", "alice")).statusCode(), "alice's second device");
    assertEquals(200, new Browser().send(get("/", "bob")).statusCode(), "one address, two keys");
  }

  private java.net.http.HttpRequest get(String path, String client) {
    return java.net.http.HttpRequest.newBuilder(java.net.URI.create(jetty.url(path)))
        .header("X-Client", client)
        .header("Accept", "text/html")
        .build();
  }

  @Test
  void aNewcomerSolvesTheChallengeThenGetsItsTicketOnce() throws Exception {
    start(WaitingRoom.builder().capacity(1).joinChallenge(6));
    Browser b = new Browser();
    HttpResponse<String> page = b.get(jetty.url("/shop"));
    assertEquals(403, page.statusCode());
    assertNull(b.cookie("room_ticket"), "no ticket before the puzzle is solved");
    assertTrue(page.body().contains("<noscript>"), "a browser without JavaScript is told why");
    assertTrue(page.body().contains(GuardPages.NOSCRIPT_TEXT));
    assertTrue(page.body().contains("new Worker(URL.createObjectURL(new Blob("), "inline worker");
    assertFalse(page.body().contains("<script src"), "no external script");
    assertEquals(0, room.liveQueueDepth());

    HttpResponse<String> json = b.get(jetty.url("/shop"), "application/json");
    assertEquals(403, json.statusCode());
    assertEquals(
        "{\"ready\":false,\"challenge_required\":true,\"challenge_url\":\"/queue/status/challenge\","
            + "\"cookie\":\"room_altcha\"}",
        json.body());

    HttpResponse<String> c = b.get(jetty.url("/queue/status/challenge"), "application/json");
    assertEquals(200, c.statusCode());
    assertEquals("no-store", c.headers().firstValue("Cache-Control").orElse(""));
    String payload = ChallengesTest.solve(c.body());
    b.setCookie(jetty.url("/"), "room_altcha", payload);
    HttpResponse<String> in = b.get(jetty.url("/shop"));
    assertEquals(200, in.statusCode());
    assertNotNull(b.cookie("room_ticket"));
    assertEquals(1, room.liveQueueDepth());

    Browser replay = new Browser();
    replay.setCookie(jetty.url("/"), "room_altcha", payload);
    assertEquals(403, replay.get(jetty.url("/shop")).statusCode(), "one solution, one ticket");
    assertNull(replay.cookie("room_ticket"));
    assertEquals(1, room.challengesRefused());
    assertEquals(1, room.liveQueueDepth());
  }

  @Test
  void theDifficultyChangesLiveAndZeroTurnsTheChallengeOff() throws Exception {
    start(WaitingRoom.builder().capacity(1));
    Browser b = new Browser();
    assertEquals(404, b.get(jetty.url("/queue/status/challenge")).statusCode());
    room.setJoinChallenge(12);
    String c = b.get(jetty.url("/queue/status/challenge"), "application/json").body();
    assertTrue(c.contains("\"maxnumber\":4096"), c);
    assertEquals(403, b.get(jetty.url("/")).statusCode());
    room.setJoinChallenge(0);
    assertEquals(200, b.get(jetty.url("/")).statusCode());
  }

  @Test
  void aWebXmlFilterReadsJoinLimitAndJoinChallenge() throws Exception {
    jetty = new JettyHarness();
    jetty.webXmlFilter(
        "room", Map.of("capacity", "1", "join-limit", "7", "join-challenge", "9"), "/*");
    jetty.servlet(new ParkingServlet(), "/*");
    jetty.start();
    WaitingRoom r =
        (WaitingRoom)
            jetty.context().getServletContext().getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE);
    assertEquals(7, r.joinLimit());
    assertEquals(9, r.joinChallenge());
  }
}
