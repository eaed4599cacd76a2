package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Admission sessions keep their promises: one claim, one session; grant and session end together.
 */
class SessionPromisesHttpTest {
  private final FakeClock clock = new FakeClock();
  private final List<Snapshot> events = new CopyOnWriteArrayList<>();
  private final ClaimRendezvousLine line = new ClaimRendezvousLine(1);
  private WaitingRoom room;
  private JettyHarness jetty;

  /**
   * Echoes the session id. {@code /done} sets {@code Room-Command: complete}; {@code /async/done}
   * does the same from an async context started with {@code startAsync()} (no arguments, so it
   * writes to the container's own response).
   */
  static final class Shop extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      String sid = String.valueOf(req.getAttribute("dev.room.sessionId"));
      if (req.getRequestURI().equals("/async/done")) {
        AsyncContext ctx = req.startAsync();
        ctx.start(
            () -> {
              HttpServletResponse r = (HttpServletResponse) ctx.getResponse();
              r.setHeader("Room-Command", "complete");
              try {
                r.getWriter().write("shop:" + sid);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              ctx.complete();
            });
        return;
      }
      if (req.getRequestURI().equals("/done")) {
        resp.setHeader("Room-Command", "complete");
      }
      resp.getWriter().write("shop:" + sid);
    }
  }

  @BeforeEach
  void start() throws Exception {
    room =
        WaitingRoom.builder()
            .line(line.proxy)
            .clock(clock)
            .admissionMode(AdmissionMode.SESSIONS)
            .sessionDuration(Duration.ofMinutes(10))
            .sessionMaxDuration(Duration.ofMinutes(60))
            .offerTimeout(Duration.ofSeconds(30))
            .build();
    for (Event e : Event.values()) {
      room.on(e, events::add);
    }
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(new Shop(), "/*");
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

  private long count(Event e) throws InterruptedException {
    assertTrue(room.events().awaitIdle(5000));
    return events.stream().filter(s -> s.event() == e).count();
  }

  private static void until(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  private HttpResponse<String> leave(Browser b) throws Exception {
    return b.send(
        HttpRequest.newBuilder(URI.create(jetty.url("/queue/status/leave")))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build());
  }

  /** A shopper holding the only slot; returns its session id. */
  private String shopper(Browser a) throws Exception {
    String body = get(a, "/");
    assertTrue(body.startsWith("shop:") && body.length() == 5 + 32, body);
    return body.substring(5);
  }

  /** A visitor who queued behind a shopper and has just been told its turn came. */
  private Browser offered() throws Exception {
    Browser a = new Browser();
    String sid = shopper(a);
    Browser b = new Browser();
    assertTrue(get(b, "/").contains("aria-live"), "queued");
    assertTrue(room.endSession(sid));
    assertEquals("{\"ready\":true,\"state\":\"offered\",\"position\":0}", status(b));
    return b;
  }

  /** Two tabs sharing cookies reload at once; returns both responses. */
  private List<HttpResponse<String>> reloadTogether(Browser b) {
    line.arm();
    CompletableFuture<HttpResponse<String>> one = CompletableFuture.supplyAsync(() -> call(b));
    CompletableFuture<HttpResponse<String>> two = CompletableFuture.supplyAsync(() -> call(b));
    return List.of(one.join(), two.join());
  }

  private HttpResponse<String> call(Browser b) {
    try {
      return b.get(jetty.url("/"));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  private static void assertOneSessionAndNoNewTicket(List<HttpResponse<String>> both) {
    String first = both.get(0).body();
    assertTrue(first.startsWith("shop:") && first.length() == 37, first);
    assertEquals(first, both.get(1).body(), "the second claim gets the first claim's session");
    for (HttpResponse<String> r : both) {
      assertTrue(
          r.headers().allValues("Set-Cookie").stream().noneMatch(c -> c.startsWith("room_ticket=")),
          "no tab is given a new ticket: " + r.headers().allValues("Set-Cookie"));
    }
  }

  @Test
  void twoConcurrentClaimsOfOneTicketStartOneSessionAndNeitherTabLosesItsTicket() throws Exception {
    Browser b = offered();
    String ticket = b.cookie("room_ticket");
    assertOneSessionAndNoNewTicket(reloadTogether(b));
    assertEquals(1, room.activeSessions());
    assertEquals(0, room.outstandingOffers());
    assertEquals(ticket, b.cookie("room_ticket"));
  }

  @Test
  void twoConcurrentClaimsOfOneTicketStartOneSessionEvenWithASpareSlot() throws Exception {
    Browser b = offered();
    room.setCapacity(2);
    assertOneSessionAndNoNewTicket(reloadTogether(b));
    assertEquals(1, room.activeSessions(), "one session, the spare slot stays free");
    assertEquals(1, room.line().freeSlots());
    assertEquals(2, count(Event.CLAIM), "the first shopper's claim and one for b");
  }

  @Test
  void aSlidingSessionOutlivesItsOnlyGrant() throws Exception {
    Browser a = new Browser();
    String sid = shopper(a);
    clock.advance(Duration.ofMinutes(4));
    HttpResponse<String> active = a.get(jetty.url("/cart"));
    assertEquals("shop:" + sid, active.body());
    assertTrue(
        active.headers().allValues("Set-Cookie").stream()
            .anyMatch(c -> c.startsWith("room_session=") && c.contains("Max-Age=600")),
        "the grant slides with the session: " + active.headers().allValues("Set-Cookie"));
    clock.advance(Duration.ofSeconds(390)); // t + 10.5 min: the first grant ran out
    assertEquals("shop:" + sid, get(a, "/checkout"), "the session lives, so its grant does");
    assertEquals(204, leave(a).statusCode());
    assertEquals(0, room.activeSessions(), "leave ends it");
    assertEquals(0, count(Event.GRANT_REJECTED));
  }

  @Test
  void aGrantThatRanOutWhileItsSessionLivesIsHonouredAndReplaced() throws Exception {
    Browser a = new Browser();
    String sid = shopper(a);
    String first = a.cookie("room_session");
    clock.advance(Duration.ofMinutes(4));
    assertEquals("shop:" + sid, get(a, "/cart")); // slides the session; a new grant is sent
    clock.advance(Duration.ofSeconds(390));
    Browser lostResponse = new Browser(); // kept the older grant: a response crossed another
    lostResponse.setCookie(jetty.url("/"), "room_session", first);
    HttpResponse<String> r = lostResponse.get(jetty.url("/"));
    assertEquals("shop:" + sid, r.body(), "the registry, not the stale grant, decides");
    assertTrue(
        r.headers().allValues("Set-Cookie").stream().anyMatch(c -> c.startsWith("room_session=")));
    clock.advance(Duration.ofMinutes(11)); // idle past the session's limit
    assertTrue(get(lostResponse, "/").startsWith("shop:"));
    assertNotEquals("shop:" + sid, get(a, "/"), "the expired session is gone for every grant");
    assertEquals(1, count(Event.SESSION_EXPIRE));
  }

  @Test
  void anExpiredSessionComesBackWithItsTicketCookieAlone() throws Exception {
    Browser b = offered();
    String bid = get(b, "/").substring(5);
    String ticket = b.cookie("room_ticket");
    clock.advance(Duration.ofMinutes(11)); // idle past the 10 min session
    Browser again = new Browser();
    again.setCookie(jetty.url("/"), "room_ticket", ticket);
    HttpResponse<String> r = again.get(jetty.url("/"));
    assertNotEquals("shop:" + bid, r.body(), "an expired session is not resumed");
    assertEquals(1, count(Event.SESSION_EXPIRE), "it expired when its ticket came back");
    assertEquals(1, room.activeSessions(), "only the new visit's session");
  }

  @Test
  void roomCommandOnAnAsyncResponseIsStrippedAndActedOn() throws Exception {
    Browser a = new Browser();
    String sid = shopper(a);
    HttpResponse<String> r = a.get(jetty.url("/async/done"));
    assertEquals("shop:" + sid, r.body());
    assertTrue(r.headers().firstValue("Room-Command").isEmpty(), "stripped");
    // The session ends on the container's thread once the response completes: the registry lets
    // go of it a moment before SESSION_END is published, so wait for the event itself.
    until(
        () -> events.stream().anyMatch(e -> e.event() == Event.SESSION_END),
        "the session to end once the response completed");
    until(() -> room.inFlight() == 0, "the request to finish");
    assertEquals(0, room.activeSessions());
    assertEquals(1, count(Event.SESSION_END));
  }

  @Test
  void roomCommandIsStrippedInRequestsModeSyncAndAsync() throws Exception {
    room.setAdmissionMode(AdmissionMode.REQUESTS);
    Browser a = new Browser();
    for (String path : List.of("/done", "/async/done")) {
      HttpResponse<String> r = a.get(jetty.url(path));
      assertEquals(200, r.statusCode());
      assertTrue(r.headers().firstValue("Room-Command").isEmpty(), path + ": stripped");
      until(() -> room.inFlight() == 0, "the request's slot to come back");
    }
    assertEquals(1, room.line().freeSlots());
    assertEquals(0, count(Event.SESSION_END), "no session to end in REQUESTS mode");
  }
}
