package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The filter and status endpoint over real HTTP, with the room installed programmatically. */
class RoomHttpTest {
  private final FakeClock clock = new FakeClock();
  private final ParkingServlet app = new ParkingServlet();
  private final AsyncServlet async = new AsyncServlet();
  private final List<Snapshot> events = new CopyOnWriteArrayList<>();
  private WaitingRoom room;
  private JettyHarness jetty;

  @BeforeEach
  void start() throws Exception {
    room = WaitingRoom.builder().capacity(1).clock(clock).build();
    for (Event e : Event.values()) {
      room.on(e, events::add);
    }
    jetty = new JettyHarness();
    jetty.filter(
        new WaitingRoomFilter(room)
            .bypassPaths("/static", "/hooks/")
            .bypass(r -> "websocket".equalsIgnoreCase(r.getHeader("X-Upgrade"))));
    jetty.servlet(async, "/async/*");
    jetty.servlet(app, "/*");
    jetty.start();
  }

  @AfterEach
  void stop() {
    jetty.close();
    room.close();
  }

  /** Holds the only slot with a parked request; returns its future. */
  private CompletableFuture<HttpResponse<String>> occupy() throws Exception {
    Browser holder = new Browser();
    CompletableFuture<HttpResponse<String>> f =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return holder.get(jetty.url("/hold"));
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    app.awaitParked(1);
    return f;
  }

  private String status(Browser b) throws Exception {
    clock.advanceMillis(1001);
    return StatusBodies.stable(b.get(jetty.url("/queue/status"), "application/json").body());
  }

  @Test
  void statusWithoutATicketSaysCookiesAreRequired() throws Exception {
    HttpResponse<String> r = new Browser().get(jetty.url("/queue/status"), "application/json");
    assertEquals(200, r.statusCode());
    assertEquals("{\"ready\":false,\"cookies_required\":true}", r.body());
    assertEquals("no-store", r.headers().firstValue("Cache-Control").orElse(""));
    Browser empty = new Browser();
    empty.setCookie(jetty.url("/"), "room_ticket", "");
    assertEquals(
        "{\"ready\":false,\"cookies_required\":true}",
        empty.get(jetty.url("/queue/status")).body());
  }

  @Test
  void unknownJunkAndOversizedTicketsAreReadyAndNeverGrowTheStore() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    for (String junk :
        List.of(
            "0123456789abcdef0123456789abcdef",
            "zzzz",
            "not-hex-at-all-but-32-characters",
            "x".repeat(8192))) {
      Browser b = new Browser();
      b.setCookie(jetty.url("/"), "room_ticket", junk);
      HttpResponse<String> r = b.get(jetty.url("/queue/status"), "application/json");
      assertTrue(r.statusCode() == 200 || r.statusCode() == 431, "status " + r.statusCode());
      if (r.statusCode() == 200) {
        assertEquals("{\"ready\":true}", r.body());
      }
    }
    for (int i = 0; i < 200; i++) {
      Browser b = new Browser();
      b.setCookie(jetty.url("/"), "room_ticket", String.format("%032x", i));
      assertEquals(200, b.get(jetty.url("/queue/status")).statusCode());
    }
    assertEquals(0, room.liveQueueDepth(), "polls never create tickets");
    app.releaseOne();
    holder.join();
  }

  @Test
  void queuedClientsSeeThePageOrJsonAndAreAdmittedInOrder() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser first = new Browser();
    Browser second = new Browser();
    HttpResponse<String> page = first.get(jetty.url("/shop"));
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("role=\"status\" aria-live=\"polite\""));
    List<String> setCookies = page.headers().allValues("Set-Cookie");
    assertTrue(
        setCookies.stream()
            .anyMatch(
                c ->
                    c.startsWith("room_ticket=")
                        && c.contains("HttpOnly")
                        && c.contains("SameSite=Lax")
                        && c.contains("Max-Age=300")),
        setCookies.toString());
    assertTrue(
        setCookies.stream().anyMatch(c -> c.startsWith("room_probe=") && !c.contains("HttpOnly")));
    HttpResponse<String> json = second.get(jetty.url("/api/items"), "application/json");
    assertEquals(503, json.statusCode());
    assertEquals("3", json.headers().firstValue("Retry-After").orElse(""));
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":2}", StatusBodies.stable(json.body()));

    // A reload while waiting shows the updated position and re-sends the cookies.
    HttpResponse<String> again = first.get(jetty.url("/shop"));
    assertTrue(again.body().contains(">1</p>"), "position rendered in place");
    assertEquals(2, again.headers().allValues("Set-Cookie").size());

    app.releaseOne();
    holder.join();
    assertEquals("{\"ready\":true,\"position\":0}", status(first));
    assertEquals("{\"ready\":false,\"state\":\"waiting\",\"position\":1}", status(second));
    app.parkRequests(false);
    assertEquals("app:/shop", first.get(jetty.url("/shop")).body());
    assertEquals("{\"ready\":true,\"position\":0}", status(second));
    assertEquals("app:/api/items", second.get(jetty.url("/api/items"), "application/json").body());
    assertEquals(0, room.inFlight());
    assertTrue(app.maxRunning() <= 1);
  }

  @Test
  void pollsFasterThanOncePerSecondGet429WithRetryAfter() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser b = new Browser();
    b.get(jetty.url("/"));
    HttpResponse<String> ok = b.get(jetty.url("/queue/status"), "application/json");
    assertEquals(200, ok.statusCode());
    HttpResponse<String> limited = b.get(jetty.url("/queue/status"), "application/json");
    assertEquals(429, limited.statusCode());
    assertEquals("1", limited.headers().firstValue("Retry-After").orElse(""));
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":1}",
        StatusBodies.stable(limited.body()));
    app.releaseOne();
    holder.join();
  }

  @Test
  void longWaitsKeepTheirPlaceBecausePollsSlideTheTtlAndRefreshCookies() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser b = new Browser();
    b.get(jetty.url("/"));
    int refreshes = 0;
    for (int i = 0; i < 40; i++) { // 40 × 30 s = 20 minutes, four TTLs
      clock.advance(Duration.ofSeconds(30));
      HttpResponse<String> r = b.get(jetty.url("/queue/status"), "application/json");
      assertEquals(
          "{\"ready\":false,\"state\":\"waiting\",\"position\":1}",
          StatusBodies.stable(r.body()),
          "poll " + i);
      refreshes += r.headers().allValues("Set-Cookie").isEmpty() ? 0 : 1;
      room.evictExpired();
    }
    assertEquals(10, refreshes, "at most once per TTL/3 (100 s): every fourth 30 s poll");
    app.releaseOne();
    holder.join();
  }

  @Test
  void optionsIs204AndOtherMethodsAre405() throws Exception {
    Browser b = new Browser();
    HttpResponse<String> options =
        b.send(
            HttpRequest.newBuilder(URI.create(jetty.url("/queue/status")))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .build());
    assertEquals(204, options.statusCode());
    HttpResponse<String> post =
        b.send(
            HttpRequest.newBuilder(URI.create(jetty.url("/queue/status")))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertEquals(405, post.statusCode());
  }

  @Test
  void bypassPathsMatchWholeSegmentsAndThePredicateBypassesToo() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    app.parkRequests(false);
    Browser b = new Browser();
    assertEquals("app:/static", b.get(jetty.url("/static")).body());
    assertEquals("app:/static/app.css", b.get(jetty.url("/static/app.css")).body());
    assertEquals("app:/hooks/stripe", b.get(jetty.url("/hooks/stripe")).body());
    assertTrue(b.get(jetty.url("/staticx")).body().contains("aria-live"), "not a bypass");
    HttpResponse<String> ws =
        b.send(
            HttpRequest.newBuilder(URI.create(jetty.url("/chat")))
                .header("X-Upgrade", "websocket")
                .build());
    assertEquals("app:/chat", ws.body());
    app.parkRequests(true);
    holder.cancel(true);
  }

  @Test
  void maxQueueDepthTurnsArrivalsAwayWithRetryAfterAndAnEvent() throws Exception {
    room.setMaxQueueDepth(1);
    CompletableFuture<HttpResponse<String>> holder = occupy();
    assertEquals(200, new Browser().get(jetty.url("/")).statusCode());
    HttpResponse<String> html = new Browser().get(jetty.url("/"));
    assertEquals(503, html.statusCode());
    assertTrue(html.headers().firstValue("Retry-After").isPresent());
    assertTrue(html.body().contains("try again"));
    room.setQueueFullStatus(429);
    HttpResponse<String> json = new Browser().get(jetty.url("/"), "application/json");
    assertEquals(429, json.statusCode());
    assertEquals("{\"ready\":false,\"queue_full\":true}", json.body());
    assertTrue(room.events().awaitIdle(5000));
    assertEquals(2, events.stream().filter(e -> e.event() == Event.REJECT).count());
    app.releaseOne();
    holder.join();
  }

  @Test
  void asyncRequestsHoldTheirSlotUntilCompleteErrorOrTimeout() throws Exception {
    Browser b = new Browser();
    CompletableFuture<HttpResponse<String>> completed =
        CompletableFuture.supplyAsync(() -> get(b, "/async/complete"));
    AsyncContext ctx = async.started.poll(10, TimeUnit.SECONDS);
    assertNotNull(ctx);
    assertEquals(1, room.inFlight(), "doFilter returned, the slot is still held");
    Browser other = new Browser();
    assertTrue(other.get(jetty.url("/other")).body().contains("aria-live"), "room is full");
    ctx.getResponse().getWriter().write("done");
    ctx.complete();
    assertEquals("done", completed.join().body());
    awaitInFlight(0);
    assertTrue(room.removeToken(other.cookie("room_ticket")));

    get(b, "/async/timeout"); // the container times it out after 200 ms
    awaitInFlight(0);
    get(b, "/async/error");
    awaitInFlight(0);
    assertEquals(0, room.liveQueueDepth());
  }

  @Test
  void fullAndDrainFireOnEdgesAndQueueCarriesTheStaleFlag() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser fresh = new Browser();
    fresh.get(jetty.url("/"));
    Browser stale = new Browser();
    stale.setCookie(jetty.url("/"), "room_ticket", "0123456789abcdef0123456789abcdef");
    stale.get(jetty.url("/"));
    app.releaseOne();
    holder.join();
    assertTrue(room.events().awaitIdle(5000));
    List<Event> kinds = events.stream().map(Snapshot::event).toList();
    assertEquals(1, kinds.stream().filter(e -> e == Event.FULL).count(), kinds.toString());
    List<Snapshot> queued = events.stream().filter(e -> e.event() == Event.QUEUE).toList();
    assertEquals(2, queued.size());
    assertFalse(queued.get(0).staleTicket());
    assertTrue(queued.get(1).staleTicket());
    assertEquals(32, queued.get(0).token().length());
    assertFalse(queued.get(0).toString().contains(queued.get(0).token()), "toString redacts");
    // The slot went to the first in line, so the room is still full: no DRAIN yet.
    assertEquals(0, kinds.stream().filter(e -> e == Event.DRAIN).count());
    assertTrue(room.removeToken(fresh.cookie("room_ticket")));
    assertTrue(room.removeToken(stale.cookie("room_ticket")));
    assertTrue(room.events().awaitIdle(5000));
    assertEquals(1, events.stream().filter(e -> e.event() == Event.DRAIN).count());
  }

  @Test
  void aSlowOrThrowingHandlerNeverBlocksAdmission() throws Exception {
    java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    room.on(
        Event.ENTER,
        s -> {
          try {
            gate.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    room.on(
        Event.EXIT,
        s -> {
          throw new IllegalStateException("handler bug");
        });
    app.parkRequests(false);
    Browser b = new Browser();
    for (int i = 0; i < 20; i++) {
      assertEquals("app:/x", b.get(jetty.url("/x")).body());
    }
    gate.countDown();
    assertTrue(room.events().awaitIdle(5000));
  }

  private void awaitInFlight(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (room.inFlight() != n) {
      assertTrue(System.nanoTime() < deadline, "in-flight stuck at " + room.inFlight());
      Thread.onSpinWait();
    }
  }

  private HttpResponse<String> get(Browser b, String path) {
    try {
      return b.get(jetty.url(path));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  /** Async endpoints: completed by the test, timed out by the container, or failing. */
  static final class AsyncServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    final transient BlockingQueue<AsyncContext> started = new LinkedBlockingQueue<>();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      AsyncContext ctx = req.startAsync();
      switch (req.getPathInfo()) {
        case "/complete" -> started.add(ctx);
        case "/timeout" -> ctx.setTimeout(200);
        case "/error" -> throw new IllegalStateException("application failure after startAsync");
        default -> ctx.complete();
      }
    }
  }
}
