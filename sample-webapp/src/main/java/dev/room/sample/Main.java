package dev.room.sample;

import dev.room.Event;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import dev.room.metrics.RoomMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shop behind a virtual waiting room — the tutorial. Read this file top to bottom.
 *
 * <p>The shop is one page whose every request holds its slot for {@code --work} (500 ms by
 * default), so a handful of browsers is enough to fill a room of {@code --capacity} slots and see
 * the waiting page. Around it, each numbered step below adds one feature of the room:
 *
 * <ol>
 *   <li>capacity and tuning for a live event;
 *   <li>client keys (who is in line);
 *   <li>skip-the-line pricing and VIP passes, with a fake payment page;
 *   <li>a custom waiting page;
 *   <li>lifecycle callbacks;
 *   <li>metrics for Prometheus;
 *   <li>restoring the line saved by the last shutdown;
 *   <li>the servlet wiring: what is gated and what bypasses the room;
 *   <li>saving the line on shutdown.
 * </ol>
 *
 * <p>Run it with {@code make run} at the repository root, or {@code java -jar
 * target/room-sample.jar --help}; {@code make demo} runs it with a crowd of simulated visitors
 * ({@link Demo}).
 */
public final class Main {
  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {}

  public static void main(String[] args) throws Exception {
    Settings settings;
    try {
      settings = Settings.parse(args, System.getenv());
    } catch (Settings.HelpRequested e) {
      System.out.print(Settings.usage());
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("room-sample: " + e.getMessage());
      System.exit(2);
      return;
    }

    Sample sample = start(settings);

    // Step 9 — save the line on shutdown (Ctrl-C, SIGTERM, a rolling restart): the hook stops
    // Jetty, waits for the requests in flight, and only then exports, so the file is an exact
    // snapshot. The next start restores it (step 7) and nobody loses their place.
    onShutdown(sample::stop);

    String base = "http://" + displayHost(settings.host) + ":" + sample.port();
    LOG.info("Shop:      {}/   (open several tabs, or run sample-webapp/test.sh)", base);
    LOG.info("Dashboard: {}/admin   ({})", base, sample.admin().howToLogIn());
    LOG.info("Metrics:   {}/metrics", base);
    sample.join();
  }

  /**
   * Runs {@code stop} on Ctrl-C or SIGTERM, then exits 0: a stop that went as planned is a success,
   * not the 130 or 143 the JVM would report, which make and shells print as an error.
   */
  static void onShutdown(Runnable stop) {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop.run();
                  LOG.info("Stopped");
                  System.out.flush();
                  System.err.flush();
                  Runtime.getRuntime().halt(0);
                },
                "room-sample-shutdown"));
  }

  /** Builds the room and the server, restores the saved line, and starts serving. */
  static Sample start(Settings s) throws Exception {
    settingsLog(s);

    // Step 1 — capacity and tuning. Capacity is how many requests the shop serves at once;
    // request capacity+1 gets a ticket and the waiting page. The other settings are the seed's
    // advice for a live event in front of a fragile origin: reclaim tickets whose browser never
    // comes back (first-poll grace), sweep often, and cap the line.
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(s.capacity)
            .tokenTtl(s.tokenTtl) // ZERO = the default, 5 minutes, sliding
            .firstPollGrace(s.firstPollGrace)
            .reaperInterval(s.reaperInterval)
            .maxQueueDepth(s.maxQueueDepth) // new arrivals beyond it get a 503 page
            .secureCookie(s.secureCookie) // turn on behind TLS
            // Step 2 — client keys: record who each ticket belongs to. The dashboard shows it;
            // removeTokensIf(t -> banned(t.clientKey())) drops a whole range at once.
            .clientKeyFunction(req -> clientIp(req, s.trustProxy))
            .clock(s.clock)
            .build();

    // Step 3 — skip the line. A rate function prices each place skipped; this one surges with
    // the length of the line. The waiting page shows the price and a "Pay to skip" button to
    // the skip URL. Paying (PaymentServlet) moves the client to the front and, with passes on,
    // hands it a VIP pass: while the pass lasts, it goes straight to the front whenever it
    // comes back, without paying again.
    if (s.rate.signum() > 0) {
      BigDecimal rate = s.rate;
      BigDecimal surge = s.surge;
      room.setRateFunction(depth -> rate.add(surge.multiply(BigDecimal.valueOf(depth))));
      room.setSkipUrl(PaymentServlet.PATH);
      room.setPassDuration(s.passDuration); // ZERO = no passes
    }

    // Step 4 — a custom waiting page. The built-in one is accessible, survives restarts and
    // explains blocked cookies; "--page shop" swaps in the bundled branded page
    // (resources/dev/room/sample/shop-waiting-page.html), which shows the placeholders a page
    // of your own can use.
    String html = waitingPage(s.page);
    if (html != null) {
      room.setHtml(html);
    }

    // Step 5 — lifecycle callbacks. Handlers run on the room's event thread, never on the
    // request path; an event may have several (the metrics below add their own). Snapshots carry
    // the room's numbers, and for per-client events the client key — and the token, which is a
    // bearer credential: never log it (Snapshot.toString() redacts it).
    room.on(
        Event.FULL,
        e -> LOG.info("Room full: {} in flight, {} waiting", e.occupancy(), e.queueDepth()));
    room.on(Event.DRAIN, e -> LOG.info("Room has free slots again: {} waiting", e.queueDepth()));
    room.on(Event.PROMOTE, e -> LOG.debug("Promoted a client: {} waiting", e.queueDepth()));
    room.on(Event.REJECT, e -> LOG.debug("Line full: turned away {}", keyOf(e.clientKey())));

    // Step 6 — metrics. RoomMetrics is a Micrometer MeterBinder shipped with the library
    // (Micrometer is optional there; this app brings it with the Prometheus registry). /metrics
    // serves the gauges and per-event counters; the dashboard reads the same counters.
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new RoomMetrics(room).bindTo(registry);
    RoomHistory history = new RoomHistory(room, registry);

    // Step 7 — restore the line the last shutdown saved, BEFORE serving: an import is refused
    // once the room has seen traffic. Settings come first (step 1), because the import judges
    // staleness with this room's TTL and grace.
    LineFile lineFile = s.stateFile == null ? null : new LineFile(s.stateFile, s.restoreMaxAge);
    if (lineFile != null) {
      lineFile.restore(room);
    }

    // Step 8 — the servlet wiring. The filter gates everything mapped to it, except paths that
    // must stay reachable while the shop is full: the payment page (a client in line must be
    // able to pay), the operator's dashboard and the metrics endpoint. It also serves the
    // waiting page's status endpoint, /queue/status.
    AdminAuth auth = AdminAuth.create(s.adminToken, s.adminTokenFile);
    ServletContextHandler context = new ServletContextHandler("/");
    context.addServlet(new ServletHolder(new ShopServlet(s.work)), "/*");
    context.addServlet(new ServletHolder(new PaymentServlet(room)), PaymentServlet.PATH + "/*");
    context.addServlet(
        new ServletHolder(new AdminServlet(room, history, auth, s.clock)), "/admin/*");
    context.addServlet(new ServletHolder(new MetricsServlet(registry)), "/metrics");
    WaitingRoomFilter filter =
        new WaitingRoomFilter(room)
            .bypassPaths(PaymentServlet.PATH, "/admin", "/metrics", "/favicon.ico");
    FilterHolder holder = new FilterHolder(filter);
    holder.setAsyncSupported(true); // the shop's requests go async; the slot is held until done
    context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));

    QueuedThreadPool threads = new QueuedThreadPool(400, 8);
    threads.setName("shop");
    Server server = new Server(threads);
    ServerConnector http = new ServerConnector(server);
    http.setHost(s.host);
    http.setPort(s.port);
    server.addConnector(http);
    // Graceful stop: stop accepting, let requests in flight finish (up to 10 s), then stop.
    server.setHandler(new GracefulHandler(context));
    try {
      server.start();
    } catch (Exception e) {
      // E.g. the port is taken. The restored line was never served: put it back for the next
      // try, and leave no room threads behind.
      if (lineFile != null) {
        lineFile.save(room);
      }
      room.close();
      throw e;
    }
    history.start();

    Sample sample = new Sample(server, http, room, history, lineFile, auth);
    if (s.portFile != null) {
      Files.writeString(s.portFile, Integer.toString(sample.port()), StandardCharsets.UTF_8);
    }
    return sample;
  }

  /**
   * The client's address: the connection's, or behind your own reverse proxy the address that proxy
   * appended to X-Forwarded-For (the last entry: earlier ones are whatever the client claimed).
   */
  static String clientIp(HttpServletRequest req, boolean trustProxy) {
    if (trustProxy) {
      String forwarded = req.getHeader("X-Forwarded-For");
      if (forwarded != null && !forwarded.isBlank()) {
        String[] hops = forwarded.split(",");
        return hops[hops.length - 1].strip();
      }
    }
    return req.getRemoteAddr();
  }

  private static String waitingPage(String page) throws IOException {
    if (page == null || page.equals("default")) {
      return null;
    }
    if (page.equals("shop")) {
      try (InputStream in = Main.class.getResourceAsStream("shop-waiting-page.html")) {
        if (in == null) {
          throw new IllegalStateException("shop-waiting-page.html is missing from the jar");
        }
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    }
    return Files.readString(Path.of(page), StandardCharsets.UTF_8);
  }

  private static String keyOf(String clientKey) {
    return clientKey.isEmpty() ? "no client key" : clientKey;
  }

  private static String displayHost(String host) {
    return host.equals("0.0.0.0") || host.isEmpty() ? "localhost" : host;
  }

  private static void settingsLog(Settings s) {
    for (String line : s.describe()) {
      LOG.info("{}", line);
    }
  }

  private static boolean timedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
      for (Throwable s : t.getSuppressed()) {
        if (timedOut(s)) {
          return true;
        }
      }
    }
    return false;
  }

  /** A running sample: its server, room and the pieces the shutdown needs. */
  static final class Sample {
    private final Server server;
    private final ServerConnector http;
    private final WaitingRoom room;
    private final RoomHistory history;
    private final LineFile lineFile;
    private final AdminAuth auth;
    private boolean stopped;

    Sample(
        Server server,
        ServerConnector http,
        WaitingRoom room,
        RoomHistory history,
        LineFile lineFile,
        AdminAuth auth) {
      this.server = server;
      this.http = http;
      this.room = room;
      this.history = history;
      this.lineFile = lineFile;
      this.auth = auth;
    }

    int port() {
      return http.getLocalPort();
    }

    WaitingRoom room() {
      return room;
    }

    AdminAuth admin() {
      return auth;
    }

    void join() throws InterruptedException {
      server.join();
    }

    /** Stops serving, waits for requests in flight, saves the line, closes the room. */
    void stop() {
      stop(Duration.ofSeconds(10));
    }

    /** As {@link #stop()}, waiting at most {@code grace} for requests in flight. */
    synchronized void stop(Duration grace) {
      if (stopped) {
        return;
      }
      stopped = true;
      server.setStopTimeout(grace.toMillis());
      try {
        server.stop();
      } catch (Exception e) {
        if (timedOut(e)) {
          // Expected when requests outlast the grace (a slow page, a long poll): one line, not a
          // stack trace. They were cut off; the line is saved all the same.
          LOG.info("Requests still running after {} ms were cut off", grace.toMillis());
        } else {
          LOG.warn("Jetty did not stop cleanly", e);
        }
      }
      history.close();
      if (lineFile != null) {
        lineFile.save(room);
      }
      room.close();
    }
  }
}
