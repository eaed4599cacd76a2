package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A restart between export and import on a real Jetty: clients keep polling through the gap, get
 * connection errors while the server is down, then resume and are admitted in their original order
 * with their original cookies.
 */
class RestartHttpTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void clientsPollThroughARestartAndAreAdmittedInTheirOriginalOrder() throws Exception {
    WaitingRoom before = WaitingRoom.builder().capacity(1).clock(clock).build();
    ParkingServlet app = new ParkingServlet();
    JettyHarness first = new JettyHarness();
    first.filter(new WaitingRoomFilter(before));
    first.servlet(app, "/*");
    first.start();
    int port = first.port();

    Browser holder = new Browser();
    CompletableFuture<HttpResponse<String>> held =
        CompletableFuture.supplyAsync(() -> call(holder, first.url("/hold")));
    app.awaitParked(1);
    List<Browser> clients = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Browser b = new Browser();
      b.get(first.url("/?client=" + i));
      clients.add(b);
    }
    app.releaseOne();
    held.join();

    // Shutdown path: stop serving, then export.
    first.stop();
    int refused = 0;
    for (Browser b : clients) {
      try {
        b.get("http://127.0.0.1:" + port + "/queue/status", "application/json");
      } catch (IOException down) {
        refused++;
      }
    }
    assertEquals(clients.size(), refused, "polls during the gap fail; the page shows reconnecting");
    ByteArrayOutputStream export = new ByteArrayOutputStream();
    before.exportTo(export);
    before.close();
    clock.advance(Duration.ofSeconds(90));

    // Startup path: settings first, import, then serve on the same address.
    WaitingRoom after = WaitingRoom.builder().capacity(1).clock(clock).build();
    assertEquals(6, after.importFrom(new ByteArrayInputStream(export.toByteArray())).restored());
    app.parkRequests(false);
    JettyHarness second = new JettyHarness(port);
    second.filter(new WaitingRoomFilter(after));
    second.servlet(app, "/*");
    second.start();

    List<Integer> admitted = new ArrayList<>();
    for (int round = 0; round < 50 && admitted.size() < clients.size(); round++) {
      clock.advanceMillis(1001);
      for (int i = 0; i < clients.size(); i++) {
        if (admitted.contains(i)) {
          continue;
        }
        Browser b = clients.get(i);
        String status = b.get(second.url("/queue/status"), "application/json").body();
        if (status.startsWith("{\"ready\":true")) {
          String body = b.get(second.url("/?client=" + i)).body();
          assertEquals("app:/", body, "client " + i + " is let in by its old cookie");
          admitted.add(i);
        }
      }
    }
    assertEquals(List.of(0, 1, 2, 3, 4, 5), admitted);
    assertTrue(app.maxRunning() <= 1);
    second.close();
    after.close();
  }

  private static HttpResponse<String> call(Browser b, String url) {
    try {
      return b.get(url);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
