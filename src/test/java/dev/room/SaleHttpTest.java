package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Running a sale over real HTTP: modes, the announcement, named rooms and health samples. */
class SaleHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FakeClock clock = new FakeClock();
  private final ParkingServlet app = new ParkingServlet();
  private WaitingRoom room;
  private JettyHarness jetty;

  @BeforeEach
  void start() throws Exception {
    room = WaitingRoom.builder().capacity(1).clock(clock).build();
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(new HealthServlet(clock), "/health/*");
    jetty.servlet(app, "/*");
    jetty.start();
  }

  @AfterEach
  void stop() {
    jetty.close();
    room.close();
  }

  private CompletableFuture<HttpResponse<String>> occupy(String path) throws Exception {
    Browser holder = new Browser();
    CompletableFuture<HttpResponse<String>> f =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return holder.get(jetty.url(path));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    app.awaitParked(1);
    return f;
  }

  private Browser queued() throws Exception {
    Browser b = new Browser();
    HttpResponse<String> page = b.get(jetty.url("/shop"));
    assertEquals(200, page.statusCode());
    assertNotNull(b.cookie("room_ticket"));
    return b;
  }

  private JsonNode status(Browser b) throws Exception {
    clock.advanceMillis(1001);
    HttpResponse<String> r = b.get(jetty.url("/queue/status"), "application/json");
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  @Test
  void pausedVisitorsAreToldInPlainWordsKeepTheirPlaceAndResumeInOrder() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy("/hold");
    Browser b = queued();
    Browser c = queued();
    room.setMode(RoomMode.PAUSED);
    app.releaseOne();
    assertEquals(200, holder.join().statusCode());
    JsonNode s = status(b);
    assertFalse(s.get("ready").asBoolean(), "the freed slot is not handed over while paused");
    assertEquals("paused", s.get("state").asText());
    assertEquals(1, s.get("position").asInt());
    assertEquals(Standing.PAUSED_MESSAGE, s.get("message").asText());
    assertNull(s.get("wait_low_seconds"), "no estimate while paused");
    assertTrue(s.get("poll_after_ms").asLong() >= 1000);
    assertTrue(b.get(jetty.url("/shop")).body().contains("aria-live"), "a reload waits on");
    assertEquals(2, status(c).get("position").asInt());

    room.setMode(RoomMode.OPEN);
    assertTrue(status(b).get("ready").asBoolean(), "the first in line goes first");
    assertEquals(1, status(c).get("position").asInt());
  }

  @Test
  void thePageIsServedInTheRoomsStateAndAnAnnouncementCannotBreakOutOfItsScript() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy("/hold");
    room.setMode(RoomMode.PAUSED);
    room.setAnnouncement("</script><script>alert(1)</script> & <b>sold out</b>");
    Browser b = new Browser();
    HttpResponse<String> page = b.get(jetty.url("/shop"));
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("<title>Admission is paused</title>"), "the tab says so");
    assertTrue(page.body().contains("\"state\":\"paused\""), "the state, before any poll");
    assertFalse(page.body().contains("<script>alert"), "escaped inside the script");
    assertFalse(page.body().contains("<b>sold out"));
    room.setAnnouncement("");
    room.setMode(RoomMode.OPEN);
    app.releaseOne();
    holder.join();
  }

  @Test
  void closedTurnsNewVisitorsAwayAndTellsThoseInLineDirectly() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy("/hold");
    Browser b = queued();
    room.setMode(RoomMode.CLOSED);

    Browser newcomer = new Browser();
    HttpResponse<String> page = newcomer.get(jetty.url("/shop"));
    assertEquals(503, page.statusCode());
    assertTrue(page.body().contains("<title>This sale has closed</title>"));
    assertEquals(2, count(page.body(), "has closed"), "in the tab title and the heading only");
    assertTrue(page.body().contains(Pages.CLOSED_TEXT));
    assertTrue(page.body().contains("name=\"viewport\""), "readable on a phone");
    assertFalse(page.body().contains("refresh"), "nothing to come back for");
    assertNull(newcomer.cookie("room_ticket"), "no ticket for a sale that has ended");
    HttpResponse<String> json = new Browser().get(jetty.url("/api/seats"), "application/json");
    assertEquals(503, json.statusCode());
    JsonNode body = JSON.readTree(json.body());
    assertEquals("closed", body.get("state").asText());
    assertNull(body.get("position"), "no misleading progress");

    JsonNode s = status(b);
    assertEquals("closed", s.get("state").asText());
    assertEquals(Standing.CLOSED_MESSAGE, s.get("message").asText());
    assertNull(s.get("position"));
    assertNull(s.get("wait_low_seconds"));
    HttpResponse<String> reload = b.get(jetty.url("/shop"));
    assertEquals(503, reload.statusCode());
    assertTrue(
        reload.body().contains("<title>This sale has closed</title>")
            && reload.body().contains("/queue/status"),
        "a place holder gets its waiting page, closed, which polls and notices a reopening");
    assertTrue(
        reload.headers().allValues("Set-Cookie").stream()
            .anyMatch(h -> h.startsWith("room_ticket=")),
        "and keeps its ticket cookie fresh");
    assertEquals(0, room.liveQueueDepth() - 1, "its place is kept");

    room.setMode(RoomMode.OPEN);
    app.releaseOne();
    holder.join();
    assertTrue(status(b).get("ready").asBoolean(), "reopened: the line moves again");
  }

  @Test
  void passthroughOpensTheGateLoudlyAndLetsTheLineIn() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy("/hold");
    Browser b = queued();
    String log =
        stderrOf(
            () -> {
              room.setMode(RoomMode.PASSTHROUGH);
              room.setMode(RoomMode.PASSTHROUGH);
            });
    assertEquals(1, count(log, "WARN"), log);
    assertTrue(log.contains("PASSTHROUGH: the waiting room is OFF"), log);

    app.parkRequests(false);
    Browser c = new Browser();
    assertEquals("app:/shop", c.get(jetty.url("/shop")).body(), "straight in although full");
    assertEquals(1, room.inFlight(), "passing requests take no slot");
    HttpResponse<String> st = b.get(jetty.url("/queue/status"), "application/json");
    assertEquals(StatusEndpoint.PASSTHROUGH, st.body());
    assertEquals("app:/shop", b.get(jetty.url("/shop")).body());
    assertEquals(0, room.liveQueueDepth(), "the visitor let in left the line");

    String again = stderrOf(() -> room.setMode(RoomMode.OPEN));
    assertEquals(0, count(again, "WARN"), again);
    assertEquals(1, count(stderrOf(() -> room.setMode(RoomMode.PASSTHROUGH)), "WARN"));
    room.setMode(RoomMode.OPEN);
    app.releaseOne();
    holder.join();
  }

  @Test
  void theAnnouncementIsCarriedInStatusAndSafelyEscaped() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy("/hold");
    Browser b = queued();
    String text = "Floor is sold out; \"seated\" <remain> & more\nsoon";
    room.setAnnouncement(text);
    clock.advanceMillis(1001);
    String raw = b.get(jetty.url("/queue/status"), "application/json").body();
    assertFalse(raw.contains("<") || raw.contains(">") || raw.contains("&"), raw);
    JsonNode s = JSON.readTree(raw);
    assertEquals(text, s.get("message").asText());
    assertEquals("waiting", s.get("state").asText());
    room.setAnnouncement("");
    assertNull(status(b).get("message"));
    app.releaseOne();
    holder.join();
  }

  @Test
  void theFilterFeedsTheControllerEachGatedRequestsLatencyAndFailure() throws Exception {
    List<String> samples = new CopyOnWriteArrayList<>();
    room.setCapacityController(
        (now, latency, failed, inFlight, capacity) -> {
          samples.add(latency + (failed ? " failed" : " ok") + " " + inFlight);
          return capacity;
        });
    Browser b = new Browser();
    assertEquals(200, b.get(jetty.url("/health/ok")).statusCode());
    assertEquals(500, b.get(jetty.url("/health/fail")).statusCode());
    assertEquals(500, b.get(jetty.url("/health/boom")).statusCode());
    assertEquals(List.of("250 ok 1", "0 failed 1", "0 failed 1"), samples);
  }

  @Test
  void twoNamedRoomsInOneApplicationNeverCollide() throws Exception {
    jetty.close();
    room.close();
    WaitingRoom a = WaitingRoom.builder().name("concert").capacity(1).clock(clock).build();
    WaitingRoom m = WaitingRoom.builder().name("merch").capacity(1).clock(clock).build();
    jetty = new JettyHarness();
    for (WaitingRoom r : List.of(a, m)) {
      FilterHolder h = new FilterHolder(new WaitingRoomFilter(r));
      h.setAsyncSupported(true);
      for (String mapping : List.of("/" + r.name() + "/*", "/queue/" + r.name() + "/*")) {
        jetty.context().addFilter(h, mapping, EnumSet.of(DispatcherType.REQUEST));
      }
    }
    jetty.servlet(app, "/*");
    jetty.start();
    try {
      CompletableFuture<HttpResponse<String>> holdA = occupy("/concert/hold");
      CompletableFuture<HttpResponse<String>> holdM =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return new Browser().get(jetty.url("/merch/hold"));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      app.awaitParked(2);
      Browser x = new Browser();
      HttpResponse<String> pageA = x.get(jetty.url("/concert/tickets"));
      assertTrue(pageA.body().contains("/queue/concert/status"), "the page polls its own room");
      HttpResponse<String> pageM = x.get(jetty.url("/merch/shirts"));
      assertTrue(pageM.body().contains("/queue/merch/status"));
      String ticketA = x.cookie("room_ticket_concert");
      String ticketM = x.cookie("room_ticket_merch");
      assertNotNull(ticketA);
      assertNotNull(ticketM);
      assertFalse(ticketA.equals(ticketM));
      assertNull(x.cookie("room_ticket"), "no unnamed cookie to collide on");
      assertNotNull(x.cookie("room_probe_concert"));

      app.releaseOne(); // one of the two holders finishes; see which room got its slot back
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (a.inFlight() + m.inFlight() != 1) { // the filter releases after the response ends
        assertTrue(System.nanoTime() < deadline, "a slot was never given back");
        Thread.onSpinWait();
      }
      clock.advanceMillis(1001);
      JsonNode sa = JSON.readTree(x.get(jetty.url("/queue/concert/status"), "json").body());
      JsonNode sm = JSON.readTree(x.get(jetty.url("/queue/merch/status"), "json").body());
      assertTrue(
          sa.get("ready").asBoolean() != sm.get("ready").asBoolean(),
          "exactly one room moved: " + sa + " " + sm);
      assertEquals(1, a.liveQueueDepth());
      assertEquals(1, m.liveQueueDepth());
      app.releaseOne();
      holdA.join();
      holdM.join();
    } finally {
      a.close();
      m.close();
    }
  }

  private static int count(String haystack, String needle) {
    int n = 0;
    for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }

  /** What the room logs (slf4j-simple writes to System.err) while {@code r} runs. */
  private static String stderrOf(Runnable r) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** An application servlet whose requests take 250 ms on the fake clock, fail or throw. */
  static final class HealthServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient FakeClock clock;

    HealthServlet(FakeClock clock) {
      this.clock = clock;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
      switch (req.getPathInfo()) {
        case "/ok" -> {
          clock.advanceMillis(250);
          resp.setStatus(200);
        }
        case "/fail" -> resp.setStatus(500);
        default -> throw new IllegalStateException("the application failed");
      }
    }
  }
}
