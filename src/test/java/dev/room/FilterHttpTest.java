package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FilterHttpTest {
  private final FakeClock clock = new FakeClock();
  private WaitingRoom room;
  private JettyHarness jetty;
  private ParkingServlet app;

  @BeforeEach
  void start() throws Exception {
    room = WaitingRoom.builder().capacity(1).clock(clock).build();
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    app = new ParkingServlet();
    jetty.servlet(app, "/*");
    jetty.start();
  }

  @AfterEach
  void stop() throws Exception {
    jetty.close();
    room.close();
  }

  @Test
  void queuedClientIsAdmittedWhenTheSlotFrees() throws Exception {
    Browser a = new Browser();
    Browser b = new Browser();
    CompletableFuture<HttpResponse<String>> first =
        CompletableFuture.supplyAsync(() -> get(a, "/"));
    app.awaitParked(1);

    HttpResponse<String> page = b.get(jetty.url("/"));
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("aria-live"), page.body());
    assertNotNull(b.cookie("room_ticket"));
    assertNotNull(b.cookie("room_probe"));

    HttpResponse<String> status = b.get(jetty.url("/queue/status"), "application/json");
    assertEquals(
        "{\"ready\":false,\"state\":\"waiting\",\"position\":1}",
        StatusBodies.stable(status.body()));

    app.releaseOne();
    assertEquals(200, first.join().statusCode());
    clock.advanceMillis(1500);
    status = b.get(jetty.url("/queue/status"), "application/json");
    assertEquals("{\"ready\":true,\"position\":0}", status.body());

    app.parkRequests(false);
    HttpResponse<String> admitted = b.get(jetty.url("/"));
    assertEquals("app:/", admitted.body());
    assertEquals(0, room.inFlight());
    assertEquals(0, room.liveQueueDepth());
  }

  private HttpResponse<String> get(Browser br, String path) {
    try {
      return br.get(jetty.url(path));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
