package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.ServletException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code state-file} init-param on a real Jetty context that is started, stopped and started
 * again, as a redeploy does: the line is saved on destroy and restored on init, in order.
 */
class StateFileHttpTest {
  @TempDir Path dir;

  @Test
  void aRedeployKeepsTheLineInOrder() throws Exception {
    Path file = dir.resolve("line.json");
    ParkingServlet app = new ParkingServlet();
    try (JettyHarness jetty = new JettyHarness()) {
      jetty.webXmlFilter("room", Map.of("capacity", "1", "state-file", file.toString()), "/*");
      jetty.servlet(app, "/*");
      jetty.start();
      Browser holder = new Browser();
      CompletableFuture<HttpResponse<String>> held =
          CompletableFuture.supplyAsync(() -> call(holder, jetty.url("/hold")));
      app.awaitParked(1);
      Browser b = new Browser();
      Browser c = new Browser();
      b.get(jetty.url("/"));
      c.get(jetty.url("/"));
      assertEquals(2, room(jetty).queueDepth());
      app.parkRequests(false);
      app.releaseOne();
      held.join();

      jetty.context().stop(); // undeploy: the filter's destroy saves the line
      assertTrue(Files.exists(file), "saved on destroy");
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
      try (var files = Files.list(dir)) {
        assertEquals(1, files.count(), "no temporary file left behind");
      }
      String saved = Files.readString(file);
      assertTrue(saved.contains(b.cookie("room_ticket")), "b's place is in the file");

      jetty.context().start(); // redeploy: a new filter instance restores it before serving
      WaitingRoom after = room(jetty);
      assertEquals(2, after.liveQueueDepth(), "both are back in line");
      assertTrue(after.linePersisted(), "a state-file line is kept, and the page may say so");
      assertFalse(Files.exists(file), "restored once, then deleted");
      String first = b.get(jetty.url("/queue/status"), "application/json").body();
      assertTrue(first.startsWith("{\"ready\":true"), "b first, as before: " + first);
      assertEquals("app:/", b.get(jetty.url("/")).body());
      String second = c.get(jetty.url("/queue/status"), "application/json").body();
      assertTrue(second.startsWith("{\"ready\":true"), "then c: " + second);
      assertEquals("app:/", c.get(jetty.url("/")).body());
    }
  }

  @Test
  void anUnreadableFileIsMovedAsideAndTheRoomStartsEmpty() throws Exception {
    Path file = dir.resolve("line.json");
    Files.writeString(file, "{\"format\":\"dev.room/line\",\"version\":1,\"tok");
    try (JettyHarness jetty = new JettyHarness()) {
      jetty.webXmlFilter("room", Map.of("capacity", "1", "state-file", file.toString()), "/*");
      ParkingServlet app = new ParkingServlet();
      app.parkRequests(false);
      jetty.servlet(app, "/*");
      jetty.start();
      assertEquals(0, room(jetty).liveQueueDepth());
      assertFalse(Files.exists(file));
      assertTrue(Files.exists(dir.resolve("line.json.rejected")), "kept for a look");
      assertEquals(200, new Browser().get(jetty.url("/")).statusCode());
    }
  }

  @Test
  void theParserNeverQuotesTheFileInTheLog() {
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                WaitingRoom.create(1)
                    .importFrom(
                        new java.io.ByteArrayInputStream(
                            "{\"format\":\"dev.room/line\",secret-token-abc}".getBytes())));
    String told = StateFile.describe(e);
    assertFalse(told.contains("secret-token-abc"), told);
    assertTrue(told.startsWith("malformed JSON"), told);
  }

  @Test
  void aRelativePathOrAProgrammaticRoomStopsStartUpWithAMessage() throws Exception {
    for (Map<String, String> bad :
        java.util.List.of(
            Map.of("capacity", "1", "state-file", "line.json"),
            Map.of("capacity", "1", "state-file", "/proc/no/such/dir/line.json"))) {
      JettyHarness jetty = new JettyHarness();
      jetty.webXmlFilter("room", bad, "/*");
      Exception e = assertThrows(Exception.class, jetty::start, bad.toString());
      assertTrue(rootServletException(e).getMessage().contains("state-file"), bad.toString());
      jetty.close();
    }
    WaitingRoom own = WaitingRoom.create(1);
    try (JettyHarness jetty = new JettyHarness()) {
      var holder = jetty.filter(new WaitingRoomFilter(own));
      holder.setInitParameter("state-file", dir.resolve("x.json").toString());
      Exception e = assertThrows(Exception.class, jetty::start);
      assertTrue(rootServletException(e).getMessage().contains("exportTo"));
    } finally {
      own.close();
    }
  }

  private static Throwable rootServletException(Exception e) {
    Throwable root = e;
    while (!(root instanceof ServletException) && root.getCause() != null) {
      root = root.getCause();
    }
    return assertInstanceOf(ServletException.class, root);
  }

  private static WaitingRoom room(JettyHarness jetty) {
    return (WaitingRoom)
        jetty.context().getServletContext().getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE);
  }

  private static HttpResponse<String> call(Browser b, String url) {
    try {
      return b.get(url);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
