package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.DispatcherType;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/** What a visitor's browser is sent: reload limits, framing and sniffing policy, cookie paths. */
class VisitorResponsesHttpTest {
  private final FakeClock clock = new FakeClock();

  private static void assertPagePolicy(HttpResponse<String> r) {
    assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(""));
    assertEquals(
        "frame-ancestors 'self'", r.headers().firstValue("Content-Security-Policy").orElse(""));
    assertEquals("SAMEORIGIN", r.headers().firstValue("X-Frame-Options").orElse(""));
  }

  /** Holds the only slot of a capacity-1 room behind {@code jetty} with a parked request. */
  private static CompletableFuture<HttpResponse<String>> occupy(
      JettyHarness jetty, ParkingServlet app) throws Exception {
    CompletableFuture<HttpResponse<String>> f =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new Browser().get(jetty.url("/hold"));
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    app.awaitParked(1);
    return f;
  }

  @Test
  void waitingPageAndStatusMayBeNeitherSniffedNorFramedElsewhere() throws Exception {
    ParkingServlet app = new ParkingServlet();
    try (WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build();
        JettyHarness jetty = new JettyHarness()) {
      jetty.filter(new WaitingRoomFilter(room));
      jetty.servlet(app, "/*");
      jetty.start();
      CompletableFuture<HttpResponse<String>> holder = occupy(jetty, app);
      Browser b = new Browser();
      HttpResponse<String> page = b.get(jetty.url("/"));
      assertTrue(page.body().contains("aria-live"));
      assertPagePolicy(page);
      assertPagePolicy(b.get(jetty.url("/"), "application/json"));
      clock.advanceMillis(1001);
      assertPagePolicy(b.get(jetty.url("/queue/status"), "application/json"));
      assertPagePolicy(new Browser().get(jetty.url("/queue/status"), "application/json"));
      app.releaseOne();
      holder.join();
    }
  }

  @Test
  void aWaitingPageReloadIsAPollInDisguiseAndIsRateLimitedLikeOne() throws Exception {
    ParkingServlet app = new ParkingServlet();
    try (WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build();
        JettyHarness jetty = new JettyHarness()) {
      jetty.filter(new WaitingRoomFilter(room));
      jetty.servlet(app, "/*");
      jetty.start();
      CompletableFuture<HttpResponse<String>> holder = occupy(jetty, app);
      Browser b = new Browser();
      assertEquals(200, b.get(jetty.url("/")).statusCode());
      clock.advanceMillis(1001);
      HttpResponse<String> reload = b.get(jetty.url("/"));
      assertEquals(200, reload.statusCode(), "a reload at the poll rate gets the page");
      assertTrue(reload.body().contains("aria-live"));
      for (int i = 0; i < 5; i++) {
        clock.advanceMillis(100);
        HttpResponse<String> fast = b.get(jetty.url("/"));
        assertEquals(429, fast.statusCode(), "reload " + i + " came too fast");
        assertEquals("1", fast.headers().firstValue("Retry-After").orElse(""));
        assertTrue(fast.body().length() < 600, "a tiny body, not the page: " + fast.body());
        assertTrue(fast.body().contains("location.reload()"), "it comes back by itself");
        assertTrue(fast.headers().allValues("Set-Cookie").isEmpty(), "no cookies re-sent");
        assertPagePolicy(fast);
      }
      HttpResponse<String> json = b.get(jetty.url("/api"), "application/json");
      assertEquals(429, json.statusCode());
      assertTrue(json.body().startsWith("{\"ready\":false,\"state\":\"waiting\",\"position\":1"));
      clock.advanceMillis(1001);
      assertEquals(200, b.get(jetty.url("/")).statusCode(), "the page works again");
      clock.advanceMillis(1001);
      assertEquals(200, b.get(jetty.url("/queue/status"), "application/json").statusCode());
      assertEquals(
          200, b.get(jetty.url("/")).statusCode(), "the page's own poll is not held against it");
      assertEquals(1, room.liveQueueDepth(), "still one place in line");
      app.releaseOne();
      holder.join();
      clock.advanceMillis(1001);
      assertEquals(
          "{\"ready\":true,\"position\":0}",
          b.get(jetty.url("/queue/status"), "application/json").body());
      app.parkRequests(false);
      assertEquals(
          "app:/", b.get(jetty.url("/")).body(), "told ready, the reload comes in at once");
    }
  }

  @Test
  void twoApplicationsOnOneHostKeepTheirOwnTicketCookies() throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    try (WaitingRoom shop =
            WaitingRoom.builder().capacity(1).clock(clock).mode(RoomMode.QUEUE_ALL).build();
        WaitingRoom shop2 =
            WaitingRoom.builder().capacity(1).clock(clock).mode(RoomMode.QUEUE_ALL).build()) {
      server.setHandler(new Handler.Sequence(context("/shop", shop), context("/shop2", shop2)));
      server.start();
      String base = "http://127.0.0.1:" + connector.getLocalPort();
      Browser b = new Browser();
      HttpResponse<String> first = b.get(base + "/shop/");
      assertTrue(
          first.headers().allValues("Set-Cookie").stream()
              .allMatch(c -> c.contains("; Path=/shop;")),
          first.headers().allValues("Set-Cookie").toString());
      assertEquals("/", shop.cookiePath(), "the setting itself was never set");
      b.get(base + "/shop2/");
      clock.advanceMillis(1001);
      String status = b.get(base + "/shop/queue/status", "application/json").body();
      assertTrue(
          status.startsWith("{\"ready\":false,\"state\":\"waiting\",\"position\":1,"),
          "the visit to /shop2 left the place in /shop alone: " + status);
      assertEquals(1, shop.liveQueueDepth());
      assertEquals(1, shop2.liveQueueDepth());

      shop.setCookiePath("/");
      HttpResponse<String> set = new Browser().get(base + "/shop/");
      assertTrue(
          set.headers().allValues("Set-Cookie").stream().allMatch(c -> c.contains("; Path=/;")),
          "an explicit path overrides: " + set.headers().allValues("Set-Cookie"));
    } finally {
      server.stop();
    }
  }

  private static ServletContextHandler context(String path, WaitingRoom room) {
    ServletContextHandler ctx = new ServletContextHandler(path);
    FilterHolder f = new FilterHolder(new WaitingRoomFilter(room));
    f.setAsyncSupported(true);
    ctx.addFilter(f, "/*", EnumSet.of(DispatcherType.REQUEST));
    ServletHolder s = new ServletHolder(new ParkingServlet());
    ctx.addServlet(s, "/*");
    return ctx;
  }
}
