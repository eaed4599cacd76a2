package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.ServletException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The filter installed the ways users install it: web.xml init-params, and shared rooms. */
class InstallHttpTest {

  @Test
  void webXmlStyleInitParamsBuildAndPublishTheRoom() throws Exception {
    try (JettyHarness jetty = new JettyHarness()) {
      jetty.webXmlFilter(
          "room",
          Map.of(
              "capacity", "1",
              "token-ttl", "PT2M",
              "first-poll-grace", "30",
              "max-queue-depth", "100",
              "secure-cookie", "true",
              "cookie-path", "/",
              "status-path", "/line/status",
              "bypass-paths", "/health, /static"),
          "/*");
      ParkingServlet app = new ParkingServlet();
      jetty.servlet(app, "/*");
      jetty.start();
      WaitingRoom room =
          assertInstanceOf(
              WaitingRoom.class,
              jetty.context().getServletContext().getAttribute("dev.room.WaitingRoom"));
      assertEquals(1, room.capacity());
      assertEquals(Duration.ofMinutes(2), room.tokenTtl());
      assertEquals(Duration.ofSeconds(30), room.firstPollGrace());
      assertEquals(100, room.maxQueueDepth());
      assertTrue(room.secureCookie());

      CompletableFuture<HttpResponse<String>> holder = hold(jetty);
      app.awaitParked(1);
      HttpResponse<String> page = new Browser().get(jetty.url("/"));
      assertTrue(page.body().contains("\"/line/status\""), "page polls the configured path");
      assertTrue(page.headers().allValues("Set-Cookie").get(0).contains("; Secure"));
      app.parkRequests(false);
      assertEquals("app:/health", new Browser().get(jetty.url("/health")).body());
      app.releaseOne();
      holder.join();
    }
  }

  @Test
  void sessionAndSaleSettingsComeFromInitParamsToo() throws Exception {
    try (JettyHarness jetty = new JettyHarness()) {
      jetty.webXmlFilter(
          "room",
          Map.of(
              "capacity", "2",
              "name", "concert",
              "admission-mode", "sessions",
              "session-duration", "PT15M",
              "session-max-duration", "3600",
              "mode", "queue-all",
              "announcement", "Doors open at ten",
              "admission-rate", "2.5"),
          "/*");
      jetty.servlet(new ParkingServlet(), "/*");
      jetty.start();
      WaitingRoom room =
          (WaitingRoom) jetty.context().getServletContext().getAttribute("dev.room.WaitingRoom");
      assertEquals("concert", room.name());
      assertEquals(AdmissionMode.SESSIONS, room.admissionMode());
      assertEquals(Duration.ofMinutes(15), room.sessionDuration());
      assertEquals(Duration.ofHours(1), room.sessionMaxDuration());
      assertEquals(RoomMode.QUEUE_ALL, room.mode());
      assertEquals("Doors open at ten", room.announcement());
      assertEquals(2.5, room.admissionRate());
    }
  }

  @Test
  void twoFiltersShareOneRoomAndOneLine() throws Exception {
    WaitingRoom room = WaitingRoom.create(1);
    try (JettyHarness jetty = new JettyHarness()) {
      jetty
          .context()
          .addFilter(
              new org.eclipse.jetty.ee10.servlet.FilterHolder(new WaitingRoomFilter(room)),
              "/a/*",
              java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
      jetty
          .context()
          .addFilter(
              new org.eclipse.jetty.ee10.servlet.FilterHolder(new WaitingRoomFilter(room)),
              "/b/*",
              java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST));
      ParkingServlet app = new ParkingServlet();
      jetty.servlet(app, "/*");
      jetty.start();
      Browser holder = new Browser();
      CompletableFuture<HttpResponse<String>> first =
          CompletableFuture.supplyAsync(() -> call(holder, jetty.url("/a/x")));
      app.awaitParked(1);
      Browser waiter = new Browser();
      assertTrue(waiter.get(jetty.url("/b/y")).body().contains("aria-live"), "one line");
      assertEquals(1, room.queueDepth());
      assertSame(room, jetty.context().getServletContext().getAttribute("dev.room.WaitingRoom"));
      app.releaseOne();
      first.join();
      app.parkRequests(false);
      assertEquals("app:/b/y", waiter.get(jetty.url("/b/y")).body());
    } finally {
      room.close();
    }
  }

  @Test
  void aSecondNoArgFilterWithoutCapacityJoinsThePublishedRoom() throws Exception {
    try (JettyHarness jetty = new JettyHarness()) {
      jetty.webXmlFilter("first", Map.of("capacity", "3"), "/a/*");
      jetty.webXmlFilter("second", Map.of("status-path", "/b/status"), "/b/*");
      jetty.servlet(new ParkingServlet(), "/*");
      jetty.start();
      WaitingRoom room =
          (WaitingRoom) jetty.context().getServletContext().getAttribute("dev.room.WaitingRoom");
      assertEquals(3, room.capacity());
    }
  }

  @Test
  void badInitParamsStopStartUpWithAMessageNamingThem() {
    for (Map<String, String> bad :
        java.util.List.of(
            Map.of("token-ttl", "PT1S", "capacity", "5"),
            Map.of("capacity", "zero"),
            Map.of("capacity", "0"),
            Map.<String, String>of(),
            Map.of("capacity", "5", "secure-cookie", "maybe"),
            Map.of("capacity", "5", "status-path", "no-slash"),
            Map.of("capacity", "5", "first-poll-grace", "-3"),
            Map.of("capacity", "5", "admission-mode", "tickets"),
            Map.of("capacity", "5", "mode", "sold-out"),
            Map.of("capacity", "5", "name", "Bad Name"),
            Map.of("capacity", "5", "admission-rate", "fast"))) {
      JettyHarness jetty = new JettyHarness();
      jetty.webXmlFilter("room", bad, "/*");
      Exception e = assertThrows(Exception.class, jetty::start, bad.toString());
      Throwable root = e;
      while (!(root instanceof ServletException) && root.getCause() != null) {
        root = root.getCause();
      }
      assertInstanceOf(ServletException.class, root, bad.toString());
      assertTrue(root.getMessage().contains("WaitingRoomFilter room"), root.getMessage());
      jetty.close();
    }
  }

  private static CompletableFuture<HttpResponse<String>> hold(JettyHarness jetty) {
    return CompletableFuture.supplyAsync(() -> call(new Browser(), jetty.url("/")));
  }

  private static HttpResponse<String> call(Browser b, String url) {
    try {
      return b.get(url);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
