package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One place per identity over real HTTP: two browsers (cookie jars) signed in to one account share
 * one place, and the one that lost it is told, on its status poll and its page.
 */
class IdentityHttpTest {
  private static final String MOVED = "{\"ready\":false,\"state\":\"moved\",\"message\":";

  private final FakeClock clock = new FakeClock();
  private final ParkingServlet app = new ParkingServlet();
  private WaitingRoom room;
  private JettyHarness jetty;

  @BeforeEach
  void start() throws Exception {
    room = room();
    jetty = serve(room, app);
  }

  @AfterEach
  void stop() {
    jetty.close();
    room.close();
  }

  private WaitingRoom room() {
    return WaitingRoom.builder()
        .capacity(1)
        .clock(clock)
        .identityFunction(r -> r.getHeader("X-Account"))
        .build();
  }

  private static JettyHarness serve(WaitingRoom r, ParkingServlet servlet) throws Exception {
    JettyHarness j = new JettyHarness();
    j.filter(new WaitingRoomFilter(r));
    j.servlet(servlet, "/*");
    return j.start();
  }

  private static HttpResponse<String> visit(JettyHarness j, Browser b, String account)
      throws Exception {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(j.url("/shop")))
            .timeout(Duration.ofSeconds(20))
            .header("Accept", "text/html");
    if (account != null) {
      req.header("X-Account", account);
    }
    return b.send(req.GET().build());
  }

  private String status(JettyHarness j, Browser b) throws Exception {
    clock.advanceMillis(1001);
    return StatusBodies.stable(b.get(j.url("/queue/status"), "application/json").body());
  }

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

  @Test
  void twoBrowsersWithOneIdentityGetOnePlaceAndTheFirstIsToldItMoved() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser phone = new Browser();
    Browser stranger = new Browser();
    Browser laptop = new Browser();
    assertTrue(visit(jetty, phone, "account-7").body().contains(">1</p>"));
    String phoneTicket = phone.cookie("room_ticket");
    assertNotNull(phoneTicket);
    assertTrue(visit(jetty, stranger, null).body().contains(">2</p>"), "anonymous: its own place");

    HttpResponse<String> page = visit(jetty, laptop, "account-7");
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains(">1</p>"), "the laptop gets the phone's place, not the back");
    String laptopTicket = laptop.cookie("room_ticket");
    assertNotNull(laptopTicket);
    assertNotEquals(phoneTicket, laptopTicket, "a fresh token: the phone's is no bearer any more");
    assertEquals(2, room.liveQueueDepth(), "one place for one identity");

    String moved = status(jetty, phone);
    assertTrue(moved.startsWith(MOVED), moved);
    assertTrue(moved.contains("another device"), moved);
    assertEquals("{\"ready\":false,\"state\":\"waiting\",\"position\":1}", status(jetty, laptop));
    assertEquals("{\"ready\":false,\"state\":\"waiting\",\"position\":2}", status(jetty, stranger));

    // A reload on the phone brings the place back there; now the laptop is told.
    assertTrue(visit(jetty, phone, "account-7").body().contains(">1</p>"));
    assertTrue(status(jetty, laptop).startsWith(MOVED));
    assertEquals(2, room.liveQueueDepth());

    app.releaseOne();
    holder.join();
    assertEquals("{\"ready\":true,\"position\":0}", status(jetty, phone));
    app.parkRequests(false);
    assertEquals("app:/shop", visit(jetty, phone, "account-7").body());
    assertEquals(0, room.inFlight());
  }

  @Test
  void theWaitingPageSaysInPlainWordsThatThePlaceMoved() throws Exception {
    String texts = WaitingPage.DEFAULT.source();
    assertTrue(texts.contains("s.state === \"moved\""), "the page's script stops on moved");
    CompletableFuture<HttpResponse<String>> holder = occupy();
    HttpResponse<String> waiting = visit(jetty, new Browser(), "account-1");
    assertTrue(waiting.body().contains(Standing.MOVED_MESSAGE.substring(0, 40)), "its words ship");
    assertTrue(waiting.body().contains(WaitingPage.TITLE_MOVED));
    app.releaseOne();
    holder.join();
  }

  @Test
  void anExportCarriesTheBindingHashedAndAnImportHonoursIt() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser phone = new Browser();
    visit(jetty, new Browser(), null);
    visit(jetty, phone, "account-5");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    room.exportTo(out);
    String file = out.toString(StandardCharsets.UTF_8);
    assertFalse(file.contains("account-5"), "never the identity itself");
    assertTrue(file.contains("\"identity_salt\":\""), file);
    assertTrue(file.contains("\"identity\":\""), file);

    WaitingRoom after = room();
    ParkingServlet afterApp = new ParkingServlet();
    try (JettyHarness j = serve(after, afterApp)) {
      assertEquals(2, after.importFrom(new ByteArrayInputStream(out.toByteArray())).restored());
      Browser laptop = new Browser();
      HttpResponse<String> page = visit(j, laptop, "account-5");
      // The free slot was offered to the first restored (away) client; the phone's place is next.
      assertTrue(page.body().contains(">1</p>"), "the restored place, not a new one at the back");
      assertEquals(2, after.liveQueueDepth());
      assertTrue(status(j, phone).startsWith(MOVED), "the phone's restored ticket moved");
    } finally {
      after.close();
    }
    app.releaseOne();
    holder.join();
  }
}
