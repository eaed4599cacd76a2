package dev.room.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's endpoints on a running sample: one slot held by a slow request, three clients in
 * line behind it.
 */
class AdminApiTest {
  private static final String TOKEN = "test-admin-token-7f3a9c";
  private static final String BEARER = "Bearer " + TOKEN;
  private final ObjectMapper json = new ObjectMapper();

  private final MovableClock clock = new MovableClock();
  private Main.Sample sample;
  private WaitingRoom room;
  private TestBrowser first;
  private TestBrowser b;
  private TestBrowser c;
  private TestBrowser d;

  @BeforeEach
  void start() throws Exception {
    Settings s = new Settings();
    s.port = 0;
    s.capacity = 1;
    s.work = Duration.ofSeconds(60); // the first request holds the only slot for the whole test
    s.stateFile = null;
    s.adminToken = TOKEN;
    s.clock = clock;
    sample = Main.start(s);
    room = sample.room();

    first = new TestBrowser(sample.port());
    first.getAsync("/");
    await(() -> room.inFlight() == 1, "the first request holds the slot");
    b = queued();
    c = queued();
    d = queued();
    assertEquals(3, room.queueDepth());
  }

  @AfterEach
  void stop() {
    sample.stop(Duration.ZERO);
  }

  @Test
  void everyEndpointNeedsTheToken() throws Exception {
    TestBrowser anon = new TestBrowser(sample.port());
    HttpResponse<String> res = anon.get("/admin/api/state");
    assertEquals(401, res.statusCode());
    assertTrue(res.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
    assertEquals(401, anon.get("/admin/api/state", "Authorization", "Bearer wrong").statusCode());
    assertEquals(
        401, anon.post("/admin/api/capacity", "application/json", "{\"capacity\":9}").statusCode());
    assertEquals(1, room.capacity(), "nothing changed");

    HttpResponse<String> page = anon.get("/admin");
    assertEquals(401, page.statusCode());
    assertTrue(page.body().contains("Operator login"));
    assertFalse(page.body().contains("/admin/api/"), "no dashboard without the token");
    assertEquals(401, anon.get("/admin?token=wrong").statusCode());
    assertEquals(200, anon.get("/admin/api/state", "Authorization", BEARER).statusCode());
  }

  @Test
  void loggingInSetsACookieAndDropsTheTokenFromTheAddress() throws Exception {
    TestBrowser operator = new TestBrowser(sample.port());
    HttpResponse<String> login = operator.get("/admin?token=" + TOKEN);
    assertEquals(302, login.statusCode());
    assertTrue(login.headers().firstValue("Location").orElse("").endsWith("/admin"));
    String setCookie = login.headers().firstValue("Set-Cookie").orElse("");
    assertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie);
    assertFalse(setCookie.contains(TOKEN), "the cookie is not the token");

    HttpResponse<String> page = operator.get("/admin");
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("Waiting room — operator"));
    assertTrue(page.headers().firstValue("Content-Security-Policy").isPresent());
    assertEquals(200, operator.get("/admin/api/state").statusCode());

    // The login form does the same, by POST.
    TestBrowser other = new TestBrowser(sample.port());
    HttpResponse<String> form =
        other.post("/admin/login", "application/x-www-form-urlencoded", "token=" + TOKEN);
    assertEquals(302, form.statusCode());
    assertEquals(200, other.get("/admin/api/state").statusCode());
  }

  @Test
  void stateShowsTheRoomAndTheLineWithoutTokens() throws Exception {
    HttpResponse<String> res = api().get("/admin/api/state", "Authorization", BEARER);
    JsonNode s = json.readTree(res.body());
    assertEquals(1, s.path("capacity").asInt());
    assertEquals(1, s.path("inFlight").asInt());
    assertEquals(3, s.path("queueDepth").asInt());
    assertEquals(3, s.path("liveQueueDepth").asInt());
    assertEquals(3, s.path("line").size());
    assertTrue(s.path("history").path("depth").isArray());
    JsonNode row = s.path("line").get(0);
    assertEquals(1, row.path("position").asInt());
    assertEquals(b.cookie("room_ticket").substring(0, 6), row.path("ticket").asText());
    assertEquals("127.0.0.1", row.path("clientKey").asText(), "client key: the client IP");
    for (TestBrowser t : List.of(b, c, d)) {
      assertFalse(res.body().contains(t.cookie("room_ticket")), "no full token in the response");
    }
  }

  @Test
  void frontRemoveRankAndCapacityChangeTheRoom() throws Exception {
    JsonNode line = state().path("line");
    String cId = line.get(1).path("id").asText();
    String dId = line.get(2).path("id").asText();

    assertEquals("{\"moved\":true}", post("/admin/api/front", "{\"id\":\"" + dId + "\"}").body());
    assertEquals(1, room.ticket(token(d)).orElseThrow().position(), "d moved to the front");
    assertEquals(1, room.ticket(token(b)).orElseThrow().position(), "tied with b: never ahead");

    assertEquals(
        "{\"removed\":true}", post("/admin/api/remove", "{\"id\":\"" + cId + "\"}").body());
    assertTrue(room.ticket(token(c)).isEmpty(), "c is out of line");
    assertEquals(2, room.queueDepth());
    assertEquals(
        "{\"removed\":false}",
        post("/admin/api/remove", "{\"id\":\"" + cId + "\"}").body(),
        "already gone: benign");

    String bId = idOf(b);
    HttpResponse<String> ranked = post("/admin/api/rank", "{\"id\":\"" + bId + "\",\"rank\":5}");
    assertEquals(200, ranked.statusCode());
    assertEquals(5, room.ticket(token(b)).orElseThrow().rank());
    assertEquals(1, room.ticket(token(b)).orElseThrow().position(), "rank 5: ahead of rank 0");
    assertEquals(2, room.ticket(token(d)).orElseThrow().position(), "positions stay exact");

    assertEquals("{\"capacity\":3}", post("/admin/api/capacity", "{\"capacity\":3}").body());
    assertEquals(3, room.capacity());
    assertEquals(0, room.queueDepth(), "growing capacity lets the line in");
    assertEquals(400, post("/admin/api/capacity", "{\"capacity\":0}").statusCode());
    assertEquals(3, room.capacity());
  }

  @Test
  void modeSwitchesEveryWayAndBadModesAreRefused() throws Exception {
    assertEquals("OPEN", state().path("mode").asText());
    for (String m : List.of("paused", "queue-all", "closed", "passthrough", "open")) {
      HttpResponse<String> res = post("/admin/api/mode", "{\"mode\":\"" + m + "\"}");
      assertEquals(200, res.statusCode(), res.body());
      String name = m.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
      assertEquals("{\"mode\":\"" + name + "\"}", res.body());
      assertEquals(RoomMode.valueOf(name), room.mode());
      assertEquals(name, state().path("mode").asText());
      if (m.equals("paused")) {
        assertEquals("paused", json.readTree(b.get("/queue/status").body()).path("state").asText());
      }
    }
    HttpResponse<String> bad = post("/admin/api/mode", "{\"mode\":\"sold-out\"}");
    assertEquals(400, bad.statusCode());
    assertTrue(bad.body().contains("queue-all"), "names the modes: " + bad.body());
    assertEquals(RoomMode.OPEN, room.mode());
  }

  @Test
  void announcementIsSetShownToVisitorsAndCleared() throws Exception {
    HttpResponse<String> res = post("/admin/api/announcement", "{\"text\":\"Back at 10:05\"}");
    assertEquals("{\"announcement\":\"Back at 10:05\"}", res.body());
    assertEquals("Back at 10:05", room.announcement());
    assertEquals("Back at 10:05", state().path("announcement").asText());
    assertEquals(
        "Back at 10:05", json.readTree(b.get("/queue/status").body()).path("message").asText());
    assertEquals(200, post("/admin/api/announcement", "{\"text\":\"\"}").statusCode());
    assertEquals("", room.announcement());
    assertEquals(400, post("/admin/api/announcement", "{\"text\":5}").statusCode());
    String tooLong = "x".repeat(1001);
    assertEquals(
        400, post("/admin/api/announcement", "{\"text\":\"" + tooLong + "\"}").statusCode());
    assertEquals("", room.announcement());
  }

  @Test
  void admissionRateIsSetAndCheckedAndZeroTurnsItOff() throws Exception {
    assertEquals(
        "{\"admissionRate\":2.5}", post("/admin/api/admission-rate", "{\"perSecond\":2.5}").body());
    assertEquals(2.5, room.admissionRate());
    assertEquals(2.5, state().path("admissionRate").asDouble());
    assertEquals(400, post("/admin/api/admission-rate", "{\"perSecond\":-1}").statusCode());
    assertEquals(400, post("/admin/api/admission-rate", "{\"perSecond\":\"fast\"}").statusCode());
    assertEquals(2.5, room.admissionRate());
    assertEquals(200, post("/admin/api/admission-rate", "{\"perSecond\":0}").statusCode());
    assertEquals(0.0, room.admissionRate());
  }

  @Test
  void presalePublishesItsSeedHashThenRevealsTheSeedOnceDrawn() throws Exception {
    JsonNode none = state().path("presale");
    assertTrue(none.path("opensAt").isNull());
    assertEquals("", none.path("seedHash").asText());

    JsonNode p = json.readTree(post("/admin/api/presale", "{\"inSeconds\":600}").body());
    assertEquals(clock.instant().plusSeconds(600).toString(), p.path("opensAt").asText());
    String hash = p.path("seedHash").asText();
    assertEquals(64, hash.length(), "a SHA-256 to publish: " + p);
    assertTrue(p.path("seed").isNull(), "the seed stays secret until the draw");
    assertEquals(hash, state().path("presale").path("seedHash").asText());
    assertTrue(room.presaleOpensAt().isPresent());

    assertEquals(200, post("/admin/api/presale", "{\"cancel\":true}").statusCode());
    assertTrue(room.presaleOpensAt().isEmpty(), "cancelled before the draw");
    assertEquals(400, post("/admin/api/presale", "{\"inSeconds\":-5}").statusCode(), "past");
    assertEquals(400, post("/admin/api/presale", "{}").statusCode());
    String at = clock.instant().plusSeconds(60).toString();
    p = json.readTree(post("/admin/api/presale", "{\"opensAt\":\"" + at + "\"}").body());
    assertEquals(at, p.path("opensAt").asText());
    hash = p.path("seedHash").asText();

    clock.advance(Duration.ofSeconds(61));
    b.get("/queue/status"); // the room draws on its first call after the opening
    JsonNode drawn = state().path("presale");
    String seed = drawn.path("seed").asText();
    assertEquals(64, seed.length(), "revealed: " + drawn);
    assertEquals(hash, sha256Hex(HexFormat.of().parseHex(seed)), "the seed matches its hash");
    assertEquals(409, post("/admin/api/presale", "{\"cancel\":true}").statusCode(), "drawn");
  }

  @Test
  void capacityControllerTurnsOnWithItsBoundsAndOff() throws Exception {
    JsonNode off = state().path("controller");
    assertFalse(off.path("adaptive").asBoolean());
    assertEquals(
        "{\"adaptive\":true,\"min\":1,\"max\":40}",
        post("/admin/api/controller", "{\"adaptive\":true,\"min\":1,\"max\":40}").body());
    assertNotNull(room.capacityController());
    assertTrue(state().path("controller").path("adaptive").asBoolean());
    assertEquals(
        400, post("/admin/api/controller", "{\"adaptive\":true,\"min\":5,\"max\":2}").statusCode());
    assertEquals(400, post("/admin/api/controller", "{\"adaptive\":\"yes\"}").statusCode());
    assertEquals(40, state().path("controller").path("max").asInt(), "a refused change keeps it");
    assertEquals(200, post("/admin/api/controller", "{\"adaptive\":false}").statusCode());
    assertNull(room.capacityController());
    assertFalse(state().path("controller").path("adaptive").asBoolean());
  }

  @Test
  void theDashboardHasEverySaleControlAndFitsASmallScreen() throws Exception {
    String page = new TestBrowser(sample.port()).get("/admin", "Authorization", BEARER).body();
    for (String id :
        List.of(
            "mode-form",
            "announcement-form",
            "rate-form",
            "presale-form",
            "presale-hash",
            "presale-seed",
            "controller-form",
            "capacity-form")) {
      assertTrue(page.contains("id=\"" + id + "\""), id);
    }
    assertTrue(page.contains("width=device-width"), "mobile viewport");
    assertTrue(page.contains(".table-wrap { overflow-x:auto"), "the table scrolls in its own box");
    assertTrue(page.contains("<div class=\"table-wrap\""), "around the line table");
  }

  @Test
  void unknownIdsAndBadBodiesAreRefused() throws Exception {
    assertEquals(404, post("/admin/api/front", "{\"id\":\"not-an-id\"}").statusCode());
    assertEquals(400, post("/admin/api/front", "[1,2]").statusCode());
    assertEquals(400, post("/admin/api/front", "{nope").statusCode());
    assertEquals(
        400, post("/admin/api/rank", "{\"id\":\"" + idOf(b) + "\",\"rank\":\"x\"}").statusCode());
    assertEquals(404, post("/admin/api/nothing", "{}").statusCode());
    assertEquals(3, room.queueDepth(), "nothing changed");
  }

  @Test
  void postsMustBeJsonSoOtherSitesCannotSubmitForms() throws Exception {
    TestBrowser operator = new TestBrowser(sample.port());
    operator.get("/admin?token=" + TOKEN);
    HttpResponse<String> form =
        operator.post("/admin/api/capacity", "application/x-www-form-urlencoded", "capacity=9");
    assertEquals(415, form.statusCode());
    assertEquals(1, room.capacity());
    HttpResponse<String> ok =
        operator.post("/admin/api/capacity", "application/json", "{\"capacity\":2}");
    assertEquals(200, ok.statusCode());
    assertEquals(2, room.capacity());
  }

  @Test
  void metricsAndTheStatusEndpointAnswerWhileTheShopIsFull() throws Exception {
    HttpResponse<String> metrics = api().get("/metrics");
    assertEquals(200, metrics.statusCode());
    assertTrue(metrics.body().contains("room_queue_depth 3.0"), metrics.body());
    assertTrue(metrics.body().contains("room_in_flight 1.0"), metrics.body());
    assertTrue(metrics.body().contains("room_events_total{event=\"queue\"}"), metrics.body());
    assertEquals(200, b.get("/queue/status").statusCode());
  }

  // ── helpers ────────────────────────────────────────────────────────────

  private TestBrowser queued() throws Exception {
    TestBrowser t = new TestBrowser(sample.port());
    HttpResponse<String> page = t.get("/");
    assertEquals(200, page.statusCode());
    assertNotNull(t.cookie("room_ticket"), "queued with a ticket");
    return t;
  }

  private static String token(TestBrowser t) {
    return t.cookie("room_ticket");
  }

  private TestBrowser api() {
    return new TestBrowser(sample.port());
  }

  private JsonNode state() throws Exception {
    return json.readTree(api().get("/admin/api/state", "Authorization", BEARER).body());
  }

  private String idOf(TestBrowser t) throws Exception {
    for (JsonNode row : state().path("line")) {
      if (token(t).startsWith(row.path("ticket").asText())) {
        return row.path("id").asText();
      }
    }
    throw new AssertionError("not listed");
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return api().post(path, "application/json", body, "Authorization", BEARER);
  }

  private static String sha256Hex(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  /** The room's clock, moved by hand so a pre-sale can open without waiting for it. */
  private static final class MovableClock implements InstantSource {
    private final AtomicLong millis = new AtomicLong(System.currentTimeMillis());

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
      return millis.get();
    }

    void advance(Duration d) {
      millis.addAndGet(d.toMillis());
    }
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }
  }
}
