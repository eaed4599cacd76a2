package dev.room.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.ParkingServlet;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: the default cookie path was the request's context path, which Tomcat takes from the
 * URI as sent, path parameters and all, so a link to {@code /app;Path=%2F;Domain=x/shop} wrote
 * {@code Path=/app;Path=%2F;Domain=x} into the ticket cookie: a bearer credential sent to sibling
 * hosts or other applications, or dropped by the browser (the place lost).
 */
class CookiePathInjectionTomcatTest {
  @TempDir Path baseDir;

  @Test
  void aLinkWithPathParametersCannotWriteAttributesIntoTheTicketCookie() throws Exception {
    WaitingRoom room = WaitingRoom.builder().capacity(1).clock(new FakeClock()).build();
    ParkingServlet app = new ParkingServlet();
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    tomcat.setHostname("127.0.0.1");
    tomcat.setPort(0);
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    Context ctx = tomcat.addContext("/app", null);
    Tomcat.addServlet(ctx, "app", app).setAsyncSupported(true);
    ctx.addServletMapping("/*", "app");
    FilterDef def = new FilterDef();
    def.setFilterName("waitingRoom");
    def.setFilter(new WaitingRoomFilter(room));
    def.setAsyncSupported("true");
    ctx.addFilterDef(def);
    FilterMap map = new FilterMap();
    map.setFilterName("waitingRoom");
    map.addURLPattern("/*");
    map.setDispatcher(DispatcherType.REQUEST.name());
    ctx.addFilterMap(map);
    tomcat.start();
    HttpClient client = HttpClient.newHttpClient();
    try {
      String base = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
      CompletableFuture<HttpResponse<String>> holder =
          client.sendAsync(
              HttpRequest.newBuilder(URI.create(base + "/app/hold")).build(),
              HttpResponse.BodyHandlers.ofString());
      app.awaitParked(1); // the only slot is held: the next visitor is queued and gets a ticket
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/app;Path=%2F;Domain=x/shop")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      String ticket =
          r.headers().allValues("Set-Cookie").stream()
              .filter(c -> c.startsWith("room_ticket="))
              .findFirst()
              .orElseThrow();
      assertTrue(ticket.contains("; Path=/app; "), "the context's path, as configured");
      assertFalse(ticket.contains("Domain"), "no attribute from the link");
      app.releaseOne();
      holder.join();
    } finally {
      tomcat.stop();
      tomcat.destroy();
      room.close();
    }
  }
}
