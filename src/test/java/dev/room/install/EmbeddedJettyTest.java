package dev.room.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Browser;
import dev.room.FakeClock;
import dev.room.ParkingServlet;
import dev.room.StatusBodies;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.DispatcherType;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/** The README's "Embedded Jetty 12" snippet, line for line, on a loopback port. */
class EmbeddedJettyTest {
  @Test
  void readmeSnippetQueuesAndAdmits() throws Exception {
    FakeClock clock = new FakeClock();
    ParkingServlet app = new ParkingServlet();
    try (WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build()) {
      Server server = new Server();
      ServerConnector http = new ServerConnector(server);
      http.setHost("127.0.0.1");
      server.addConnector(http);

      ServletContextHandler context = new ServletContextHandler("/");
      context.addServlet(new ServletHolder(app), "/*");
      FilterHolder filter = new FilterHolder(new WaitingRoomFilter(room).bypassPaths("/static"));
      filter.setAsyncSupported(true);
      context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
      server.setHandler(context);
      server.start();
      try {
        String base = "http://127.0.0.1:" + http.getLocalPort();
        assertSame(room, context.getServletContext().getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE));

        Browser a = new Browser();
        CompletableFuture<HttpResponse<String>> first =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return a.get(base + "/");
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        app.awaitParked(1);

        Browser b = new Browser();
        assertTrue(b.get(base + "/").body().contains("aria-live"), "b sees the waiting page");
        assertEquals(
            "{\"ready\":false,\"state\":\"waiting\",\"position\":1}",
            StatusBodies.stable(b.get(base + "/queue/status", "application/json").body()));

        app.parkRequests(false);
        assertEquals("app:/static/x.css", new Browser().get(base + "/static/x.css").body());
        app.releaseOne();
        assertEquals(200, first.join().statusCode());
      } finally {
        server.stop();
      }
    }
  }
}
