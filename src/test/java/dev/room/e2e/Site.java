package dev.room.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.room.Browser;
import dev.room.JettyHarness;
import dev.room.ParkingServlet;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The system under test: a room and its filter in front of a {@link ParkingServlet} application, on
 * a real Jetty. {@code /pay} is left ungated (the skip URL must be reachable from the line), and a
 * filter ahead of the room counts the traffic a test wants to reason about.
 *
 * <p>Other visitors are {@link Browser}s that take a ticket and never poll; the test moves them
 * through the room itself so it decides when the browser under test moves up.
 */
final class Site implements AutoCloseable {
  static final String STATUS = WaitingRoomFilter.DEFAULT_STATUS_PATH;
  static final String SKIP_PATH = "/pay";

  final WaitingRoom room;
  final ParkingServlet app = new ParkingServlet();
  private final JettyHarness jetty = new JettyHarness();
  private final Traffic traffic = new Traffic();
  private final AtomicInteger parked = new AtomicInteger();
  private final List<CompletableFuture<Void>> visits = new CopyOnWriteArrayList<>();
  private boolean stopped;

  private Site(WaitingRoom room, int port) throws Exception {
    this.room = room;
    jetty.filter(traffic);
    jetty.filter(new WaitingRoomFilter(room).bypassPaths(SKIP_PATH));
    jetty.servlet(new PayServlet(), SKIP_PATH);
    jetty.servlet(app, "/*");
    ((ServerConnector) jetty.context().getServer().getConnectors()[0]).setPort(port);
    jetty.start();
  }

  /** Serves {@code room} on a free loopback port. */
  static Site start(WaitingRoom room) throws Exception {
    return new Site(room, 0);
  }

  /** Serves {@code room} on {@code port}: the same origin as a site that ran there before. */
  static Site startOn(int port, WaitingRoom room) throws Exception {
    return new Site(room, port);
  }

  String url(String path) {
    return jetty.url(path);
  }

  int port() {
    return jetty.port();
  }

  /** Takes a slot with an application request that stays parked until {@link #releaseOne}. */
  void holdSlot() throws InterruptedException {
    enter(new Browser());
  }

  /** Lets the oldest parked application request finish, which frees its slot. */
  void releaseOne() throws InterruptedException {
    app.releaseOne();
    parked.decrementAndGet();
  }

  /** A visitor that takes a ticket and then never polls. */
  Browser queueVisitor() throws Exception {
    Browser b = new Browser();
    HttpResponse<String> page = b.get(url("/"));
    assertEquals(200, page.statusCode());
    assertNotNull(b.cookie("room_ticket"), "a queued visitor gets a ticket");
    return b;
  }

  /** Brings back a visitor whose turn has come; its request is then parked in the application. */
  void enter(Browser b) throws InterruptedException {
    int before = parked.getAndIncrement();
    // No client timeout: the request stays parked for as long as the test waits (longer than
    // Browser's 20 s under load, which failed teardown's release in CI); releaseParked bounds it.
    HttpRequest hold = HttpRequest.newBuilder(URI.create(url("/"))).GET().build();
    inBackground(() -> send(b, hold));
    app.awaitParked(before + 1);
  }

  /** One request by {@code b}, answered in full; returns the body. */
  String visit(Browser b, String path) throws Exception {
    return b.get(url(path)).body();
  }

  /**
   * A condition that holds once {@code n} status polls that had not started yet have been served:
   * polls that saw whatever the test did just before. Pages poll one at a time.
   */
  BooleanSupplier polledAgain(int n) {
    int target = traffic.pollsStarted.get() + n;
    return () -> traffic.polls.get() >= target;
  }

  /** Status polls served so far, 429s included. */
  int statusPolls() {
    return traffic.polls.get();
  }

  /** Status polls whose response re-sent the ticket cookie. */
  int cookieRefreshes() {
    return traffic.refreshes.get();
  }

  /** Waiting pages served so far (gated responses that handed out a ticket cookie). */
  int waitingPages() {
    return traffic.pages.get();
  }

  /** Stops the server, as an operator would for a deploy; the room stays for export. */
  void stop() throws Exception {
    // Held first: the slots the parked requests give back must not be handed to a visitor in the
    // moment before the server goes (its page would reload into a dead server, and the test that
    // waits for "Reconnecting" would wait for a page that never comes back; a flake under load).
    room.setMode(RoomMode.QUEUE_ALL);
    releaseParked();
    jetty.stop();
    stopped = true;
  }

  @Override
  public void close() {
    try {
      if (!stopped) {
        releaseParked();
        jetty.close();
      }
    } finally {
      room.close();
    }
  }

  /** Lets every parked request finish, and waits for their responses before the server goes. */
  private void releaseParked() {
    app.parkRequests(false);
    try {
      while (parked.get() > 0) {
        releaseOne();
      }
      for (CompletableFuture<Void> v : visits) {
        v.get(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while releasing parked requests", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("a parked request did not complete", e);
    }
  }

  private void inBackground(Runnable r) {
    visits.add(
        CompletableFuture.runAsync(
            r,
            task -> {
              Thread t = new Thread(task, "visitor");
              t.setDaemon(true);
              t.start();
            }));
  }

  private static void send(Browser b, HttpRequest r) {
    try {
      b.send(r);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Counts status polls, cookie refreshes and waiting pages as they leave the server. */
  private static final class Traffic implements Filter {
    final AtomicInteger pollsStarted = new AtomicInteger();
    final AtomicInteger polls = new AtomicInteger();
    final AtomicInteger refreshes = new AtomicInteger();
    final AtomicInteger pages = new AtomicInteger();

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      HttpServletRequest req = (HttpServletRequest) request;
      TicketCookieSpy res = new TicketCookieSpy((HttpServletResponse) response);
      boolean status = STATUS.equals(req.getRequestURI());
      if (status) {
        pollsStarted.incrementAndGet();
      }
      chain.doFilter(request, res);
      if (status && req.isAsyncStarted()) {
        // a held poll (HeadOfLine) is answered later, by a wake or its timeout's own poll, which
        // may be the one that re-sends the cookie: it is served when its response is complete
        req.getAsyncContext().addListener(new CountPoll(res));
      } else if (status) {
        served(res);
      } else if (res.ticketSent.get() && accepts(req, "text/html")) {
        pages.incrementAndGet();
      }
    }

    /**
     * A poll served: its refresh is counted before the poll, so that a test that saw the poll
     * served (polledAgain) also sees the refresh it brought.
     */
    private void served(TicketCookieSpy res) {
      if (res.ticketSent.get()) {
        refreshes.incrementAndGet();
      }
      polls.incrementAndGet();
    }

    private final class CountPoll implements AsyncListener {
      private final TicketCookieSpy res;

      CountPoll(TicketCookieSpy res) {
        this.res = res;
      }

      @Override
      public void onComplete(AsyncEvent event) {
        served(res);
      }

      @Override
      public void onTimeout(AsyncEvent event) {}

      @Override
      public void onError(AsyncEvent event) {}

      @Override
      public void onStartAsync(AsyncEvent event) {}
    }
  }

  private static boolean accepts(HttpServletRequest req, String type) {
    String accept = req.getHeader("Accept");
    return accept != null && accept.contains(type);
  }

  private static final class TicketCookieSpy extends HttpServletResponseWrapper {
    final AtomicBoolean ticketSent = new AtomicBoolean();

    TicketCookieSpy(HttpServletResponse res) {
      super(res);
    }

    @Override
    public void addHeader(String name, String value) {
      spy(name, value);
      super.addHeader(name, value);
    }

    @Override
    public void setHeader(String name, String value) {
      spy(name, value);
      super.setHeader(name, value);
    }

    private void spy(String name, String value) {
      if ("Set-Cookie".equalsIgnoreCase(name) && value.startsWith("room_ticket=")) {
        ticketSent.set(true);
      }
    }
  }

  /** The payment page the skip offer links to. */
  private static final class PayServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      res.setContentType("text/html;charset=utf-8");
      res.getWriter()
          .write(
              "<!DOCTYPE html><html lang=\"en\"><head><title>Pay</title>"
                  + "<link rel=\"icon\" href=\"data:,\"></head>"
                  + "<body><main><h1 id=\"pay\">Pay to skip the line</h1></main></body></html>");
    }
  }
}
