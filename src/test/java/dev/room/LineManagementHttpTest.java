package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Line management as waiting clients see it over HTTP. */
class LineManagementHttpTest {
  private final FakeClock clock = new FakeClock();
  private final ParkingServlet app = new ParkingServlet();
  private WaitingRoom room;
  private JettyHarness jetty;
  private CompletableFuture<HttpResponse<String>> holder;

  @BeforeEach
  void start() throws Exception {
    room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .clientKeyFunction(r -> r.getHeader("X-Client"))
            .rateFunction(depth -> new BigDecimal("1.25"))
            .skipUrl("/pay?x=1&y=2")
            .passDuration(Duration.ofMinutes(30))
            .build();
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(app, "/*");
    jetty.start();
    Browser b = new Browser();
    holder = CompletableFuture.supplyAsync(() -> call(b, "/"));
    app.awaitParked(1);
  }

  @AfterEach
  void stop() throws Exception {
    app.parkRequests(false);
    app.releaseOne();
    holder.join();
    jetty.close();
    room.close();
  }

  private String status(Browser b) throws Exception {
    clock.advanceMillis(1001);
    return StatusBodies.stable(b.get(jetty.url("/queue/status"), "application/json").body());
  }

  private Browser queued(String clientKey) throws Exception {
    Browser b = new Browser();
    HttpResponse<String> r =
        b.send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(jetty.url("/")))
                .header("X-Client", clientKey)
                .build());
    assertEquals(200, r.statusCode());
    return b;
  }

  @Test
  void statusCarriesPricingAndThePageLinksTheSkipUrl() throws Exception {
    Browser a = queued("1.1.1.1");
    Browser b = queued("2.2.2.2");
    HttpResponse<String> page = b.get(jetty.url("/"));
    assertTrue(page.body().contains("href=\"/pay?x=1&amp;y=2\""), "escaped skip URL");
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":1,\"skip_cost\":0.00,\"rate_per_pos\":1.25}",
        status(a));
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":2,\"skip_cost\":1.25,\"rate_per_pos\":1.25}",
        status(b));
    List<TicketInfo> q = room.queue(10);
    assertEquals("1.1.1.1", q.get(0).clientKey());
    assertEquals("2.2.2.2", q.get(1).clientKey());
  }

  @Test
  void statusCarriesTheCurrencyRightAfterTheSkipCost() throws Exception {
    room.setCurrency(java.util.Currency.getInstance("EUR"));
    assertEquals("EUR", room.currency().getCurrencyCode());
    queued("1.1.1.1");
    Browser b = queued("2.2.2.2");
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":2,\"skip_cost\":1.25,"
            + "\"currency\":\"EUR\",\"rate_per_pos\":1.25}",
        status(b));
    room.setCurrency(null);
    assertFalse(status(b).contains("currency"), "none by default");
  }

  @Test
  void removedClientsAreToldReadyAndEveryoneBehindMovesUp() throws Exception {
    Browser a = queued("a");
    Browser b = queued("b");
    Browser c = queued("c");
    assertTrue(room.removeToken(b.cookie("room_ticket")));
    assertEquals("{\"ready\":true}", status(b));
    assertTrue(status(a).contains("\"position\":1"));
    assertTrue(status(c).contains("\"position\":2"));
  }

  @Test
  void aPaidClientGetsAPassAndReEntersAtTheFrontWithoutPayingAgain() throws Exception {
    queued("a");
    queued("b");
    Browser payer = queued("payer");
    PromoteResult paid = room.promoteTokenToFront(payer.cookie("room_ticket"));
    assertEquals(new BigDecimal("2.50"), paid.cost());
    payer.setCookie(jetty.url("/"), "room_pass", paid.passToken());
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":1,\"has_pass\":true}", status(payer));

    // The payer leaves and comes back later with a fresh browser session but the pass cookie.
    assertTrue(room.removeToken(payer.cookie("room_ticket")));
    Browser back = new Browser();
    back.setCookie(jetty.url("/"), "room_pass", paid.passToken());
    back.get(jetty.url("/"));
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":1,\"has_pass\":true}", status(back));
    assertTrue(room.ticket(back.cookie("room_ticket")).orElseThrow().hasPass());

    clock.advance(Duration.ofMinutes(31));
    Browser expired = new Browser();
    expired.setCookie(jetty.url("/"), "room_pass", paid.passToken());
    expired.get(jetty.url("/"));
    assertTrue(status(expired).contains("\"skip_cost\""), "an expired pass is just a cookie");
  }

  private HttpResponse<String> call(Browser b, String path) {
    try {
      return b.get(jetty.url(path));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
