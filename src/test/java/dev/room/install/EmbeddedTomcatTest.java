package dev.room.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.ParkingServlet;
import dev.room.StatusBodies;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real embedded Tomcat 11 in front of the filter, installed the two ways the README shows: in
 * code ({@link FilterDef} with a room instance) and from a {@code WEB-INF/web.xml} with
 * init-params. Clients send cookies as browsers do; see {@link PlainCookieBrowser}.
 */
class EmbeddedTomcatTest {
  @TempDir Path baseDir;
  private Tomcat tomcat;
  private WaitingRoom room;

  @AfterEach
  void stop() throws Exception {
    if (tomcat != null) {
      tomcat.stop();
      tomcat.destroy();
    }
    if (room != null) {
      room.close();
    }
  }

  @Test
  void programmaticFilterQueuesAndAdmitsInOrder() throws Exception {
    FakeClock clock = new FakeClock();
    room = WaitingRoom.builder().capacity(1).clock(clock).build();
    ParkingServlet app = new ParkingServlet();

    // As in the README's "Embedded Tomcat" snippet, on a loopback port chosen by the OS.
    tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    tomcat.setHostname("127.0.0.1");
    tomcat.setPort(0);
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    Context ctx = tomcat.addContext("", null);
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

    assertSame(room, ctx.getServletContext().getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE));

    PlainCookieBrowser a = new PlainCookieBrowser();
    CompletableFuture<HttpResponse<String>> first = async(a, "/first");
    app.awaitParked(1);

    PlainCookieBrowser b = new PlainCookieBrowser();
    PlainCookieBrowser c = new PlainCookieBrowser();
    assertTrue(b.get(url("/second")).body().contains("aria-live"), "b sees the waiting page");
    assertTrue(c.get(url("/third")).body().contains("aria-live"), "c sees the waiting page");
    assertEquals("{\"ready\":false,\"state\":\"waiting\",\"position\":1}", status(b));
    assertEquals("{\"ready\":false,\"state\":\"waiting\",\"position\":2}", status(c));
    assertEquals(1, room.inFlight());
    assertEquals(2, room.queueDepth());

    app.releaseOne();
    assertEquals("app:/first", first.join().body());
    await(() -> room.inFlight() == 0, "the first request's slot is free");
    clock.advanceMillis(1500); // past the one-poll-a-second limit
    assertEquals("{\"ready\":true,\"position\":0}", status(b));

    CompletableFuture<HttpResponse<String>> second = async(b, "/second");
    app.awaitParked(1);
    assertEquals(1, room.inFlight());
    assertEquals(1, room.queueDepth(), "c is still waiting");
    app.releaseOne();
    assertEquals("app:/second", second.join().body());
    assertEquals(1, app.maxRunning(), "never more than capacity at once");
  }

  /** Tomcat is strict about {@code startAsync(request, response)} wrappers: it must work there. */
  @Test
  void roomCommandOnAnAsyncResponseIsStrippedAndActedOn() throws Exception {
    room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(new FakeClock())
            .admissionMode(dev.room.AdmissionMode.SESSIONS)
            .build();
    startWithFilter("", new AsyncCommandServlet());

    PlainCookieBrowser a = new PlainCookieBrowser();
    HttpResponse<String> r = a.get(url("/done"));
    assertEquals(200, r.statusCode());
    assertEquals("async", r.body());
    assertTrue(r.headers().firstValue("Room-Command").isEmpty(), "stripped");
    await(() -> room.activeSessions() == 0, "the session to end once the response completed");
    // The registry lets go of the session a moment before its slot is given back.
    await(() -> room.utilization() == 0.0, "its slot to come back");
  }

  /**
   * Regression: the default cookie path was the request's context path, which Tomcat takes from the
   * URI as sent, path parameters and all, so a link to {@code /app;Path=%2F;Domain=x/shop} wrote
   * {@code Path=/app;Path=%2F;Domain=x} into the ticket cookie: a bearer credential sent to sibling
   * hosts or other applications, or dropped by the browser (the place lost).
   */
  @Test
  void aLinkWithPathParametersCannotWriteAttributesIntoTheTicketCookie() throws Exception {
    room = WaitingRoom.builder().capacity(1).clock(new FakeClock()).build();
    ParkingServlet app = new ParkingServlet();
    startWithFilter("/app", app);
    CompletableFuture<HttpResponse<String>> holder = async(new PlainCookieBrowser(), "/app/hold");
    app.awaitParked(1); // the only slot is held: the next visitor is queued and gets a ticket
    HttpResponse<String> r = new PlainCookieBrowser().get(url("/app;Path=%2F;Domain=x/shop"));
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
  }

  /** Completes from {@code startAsync()} with no arguments, setting {@code Room-Command}. */
  public static final class AsyncCommandServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
      jakarta.servlet.AsyncContext async = req.startAsync();
      async.start(
          () -> {
            HttpServletResponse res = (HttpServletResponse) async.getResponse();
            res.setHeader("Room-Command", "complete");
            try {
              res.getWriter().write("async");
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
            async.complete();
          });
    }
  }

  @Test
  void webXmlFilterWithInitParams() throws Exception {
    Path webInf = Files.createDirectories(baseDir.resolve("webapp/WEB-INF"));
    Files.writeString(webInf.resolve("web.xml"), WEB_XML);
    HoldServlet.reset();

    tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    tomcat.setHostname("127.0.0.1");
    tomcat.setPort(0);
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    tomcat.setAddDefaultWebXmlToWebapp(false);
    Context ctx = tomcat.addWebapp("", baseDir.resolve("webapp").toString());
    StandardJarScanner scanner = new StandardJarScanner();
    scanner.setScanClassPath(false); // nothing to discover: keeps start-up fast
    ctx.setJarScanner(scanner);
    tomcat.start();
    assertEquals(LifecycleState.STARTED, ctx.getState(), "web.xml deployed");

    Object published = ctx.getServletContext().getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE);
    assertTrue(published instanceof WaitingRoom, "the filter publishes its room");
    WaitingRoom fromXml = (WaitingRoom) published;
    assertEquals(1, fromXml.capacity());
    assertEquals(Duration.ofMinutes(2), fromXml.tokenTtl());
    assertEquals(Duration.ofSeconds(30), fromXml.firstPollGrace());
    assertEquals(20_000, fromXml.maxQueueDepth());

    PlainCookieBrowser a = new PlainCookieBrowser();
    CompletableFuture<HttpResponse<String>> held = async(a, "/hold");
    assertTrue(HoldServlet.entered.tryAcquire(10, TimeUnit.SECONDS), "first request runs");

    PlainCookieBrowser b = new PlainCookieBrowser();
    assertTrue(b.get(url("/shop")).body().contains("aria-live"), "b waits");
    assertNotNull(b.cookie("room_ticket"));
    assertEquals("{\"ready\":false,\"state\":\"waiting\",\"position\":1}", status(b));
    assertEquals("static", new PlainCookieBrowser().get(url("/static/app.css")).body(), "bypassed");

    HoldServlet.release.countDown();
    assertEquals("app:/hold", held.join().body());
    await(() -> fromXml.inFlight() == 0, "the held slot is free");
    assertEquals("{\"ready\":true,\"position\":0}", status(b));
    assertEquals("app:/shop", b.get(url("/shop")).body());
  }

  @Test
  void webXmlStateFileKeepsTheLineAcrossAReload() throws Exception {
    Path line = baseDir.resolve("state/line.json");
    Path webInf = Files.createDirectories(baseDir.resolve("webapp/WEB-INF"));
    Files.writeString(
        webInf.resolve("web.xml"),
        WEB_XML.replace(
            "<init-param><param-name>token-ttl</param-name>",
            "<init-param><param-name>state-file</param-name><param-value>"
                + line
                + "</param-value></init-param>\n"
                + "          <init-param><param-name>token-ttl</param-name>"));
    HoldServlet.reset();
    tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    tomcat.setHostname("127.0.0.1");
    tomcat.setPort(0);
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    tomcat.setAddDefaultWebXmlToWebapp(false);
    Context ctx = tomcat.addWebapp("", baseDir.resolve("webapp").toString());
    StandardJarScanner scanner = new StandardJarScanner();
    scanner.setScanClassPath(false);
    ctx.setJarScanner(scanner);
    tomcat.start();

    PlainCookieBrowser a = new PlainCookieBrowser();
    CompletableFuture<HttpResponse<String>> held = async(a, "/hold");
    assertTrue(HoldServlet.entered.tryAcquire(10, TimeUnit.SECONDS), "first request runs");
    PlainCookieBrowser b = new PlainCookieBrowser();
    PlainCookieBrowser c = new PlainCookieBrowser();
    assertTrue(b.get(url("/shop")).body().contains("aria-live"), "b waits");
    assertTrue(c.get(url("/shop")).body().contains("aria-live"), "c waits");
    HoldServlet.release.countDown();
    held.join();

    ctx.reload(); // a redeploy: destroy saves the line, the new filter's init restores it
    assertFalse(Files.exists(line), "restored, then deleted");
    WaitingRoom after =
        (WaitingRoom) ctx.getServletContext().getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE);
    assertEquals(2, after.liveQueueDepth(), "b and c kept their places");
    assertTrue(status(b).startsWith("{\"ready\":true"), "b is first, as before");
    assertEquals("app:/shop", b.get(url("/shop")).body());
    await(() -> after.inFlight() == 0, "b's request is done");
    assertTrue(status(c).startsWith("{\"ready\":true"), "then c");
  }

  /** The README's web.xml, with a servlet standing in for the application. */
  private static final String WEB_XML =
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
        <filter>
          <filter-name>waitingRoom</filter-name>
          <filter-class>dev.room.WaitingRoomFilter</filter-class>
          <async-supported>true</async-supported>
          <init-param><param-name>capacity</param-name><param-value>1</param-value></init-param>
          <init-param><param-name>token-ttl</param-name><param-value>PT2M</param-value></init-param>
          <init-param><param-name>first-poll-grace</param-name><param-value>30</param-value></init-param>
          <init-param><param-name>max-queue-depth</param-name><param-value>20000</param-value></init-param>
          <init-param><param-name>bypass-paths</param-name><param-value>/static,/ws</param-value></init-param>
        </filter>
        <filter-mapping>
          <filter-name>waitingRoom</filter-name>
          <url-pattern>/*</url-pattern>
          <dispatcher>REQUEST</dispatcher>
        </filter-mapping>
        <servlet>
          <servlet-name>app</servlet-name>
          <servlet-class>dev.room.install.EmbeddedTomcatTest$HoldServlet</servlet-class>
          <async-supported>true</async-supported>
        </servlet>
        <servlet-mapping>
          <servlet-name>app</servlet-name>
          <url-pattern>/</url-pattern>
        </servlet-mapping>
      </web-app>
      """;

  /** The web.xml application: {@code /hold} waits for the test; {@code /static/*} is an asset. */
  public static final class HoldServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final Semaphore entered = new Semaphore(0);
    static volatile CountDownLatch release = new CountDownLatch(1);

    static void reset() {
      entered.drainPermits();
      release = new CountDownLatch(1);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
      res.setContentType("text/plain");
      if (path.startsWith("/static/")) {
        res.getWriter().write("static");
        return;
      }
      if (path.equals("/hold")) {
        entered.release();
        try {
          if (!release.await(30, TimeUnit.SECONDS)) {
            res.sendError(500, "never released");
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      res.getWriter().write("app:" + path);
    }
  }

  // ── helpers ────────────────────────────────────────────────────────────

  /** Starts Tomcat with {@code app} at {@code contextPath} behind the room's filter, in code. */
  private void startWithFilter(String contextPath, HttpServlet app) throws Exception {
    tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    tomcat.setHostname("127.0.0.1");
    tomcat.setPort(0);
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    Context ctx = tomcat.addContext(contextPath, null);
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
  }

  private String url(String path) {
    return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + path;
  }

  private String status(PlainCookieBrowser b) throws Exception {
    return StatusBodies.stable(b.get(url("/queue/status"), "application/json").body());
  }

  private CompletableFuture<HttpResponse<String>> async(PlainCookieBrowser b, String path) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return b.get(url(path));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** Polls {@code condition} for up to ten seconds (a slot is freed after the response is sent). */
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
