package dev.room.bench;

import dev.room.AdmissionMode;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The soak (issue 16, "keep the origin busy"): a real room behind real embedded Jetty on loopback,
 * and thousands of simulated browsers that behave like the built-in page.
 *
 * <p>A browser asks for {@code /} (the waiting page and its ticket cookie), then polls the status
 * path as the page does: after {@code max(floor, poll_after_ms)}, or {@code Retry-After} on a 429,
 * with the page's long-poll parameter; on {@code ready:true} it reloads {@code /} (the claim). An
 * admitted request takes 50–500 ms at the origin (async, no thread held), then the browser is done;
 * in SESSIONS mode it then leaves ({@code POST <status>/leave}), which frees the slot. A share of
 * browsers abandon: they stop polling for good at a random moment.
 *
 * <p>Reported: origin utilisation (mean in-flight at the origin ÷ capacity, sampled every 10 ms
 * while at least {@code capacity} live browsers wait: polling, not told ready yet), mean offers
 * outstanding in the same samples, slot freed → next request at the origin (median, p99; frees
 * while at least capacity wait), order (a live browser told ready more than {@value
 * #ORDER_SLACK_MILLIS} ms after one that arrived later, or never while a later one was),
 * over-capacity (origin requests that found capacity already in flight), errors, served, still
 * waiting, heap after a GC. And where a hand-over's time goes: how many clients heard they were
 * ready from a wake of their held poll, and how many from a poll that found its offer already
 * waiting (by what answered their poll before: a held poll's timeout, an at-once answer, a 429),
 * told ready → claim at the origin, and how late the load generator's own timers ran.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.room.bench.SoakBenchmark --seconds 45
 *     [--browsers 3000] [--arrive-seconds 15] [--abandon 0.2] [--capacity 20]
 *     [--min-ms 50] [--max-ms 500] [--mode admission|sessions] [--offer-timeout 60]
 * </pre>
 *
 * Every browser is a few objects and timers on one scheduler thread; HTTP is Jetty's async client
 * on one selector, so the load generator stays cheap on a shared 2-core machine.
 */
public final class SoakBenchmark {
  /** The page starts at most one poll in this long (waiting-page.html, nextDelay). */
  static final long PAGE_POLL_FLOOR_MILLIS = 1000;

  /** A told-ready inversion smaller than this is poll phase, not order. */
  static final long ORDER_SLACK_MILLIS = 3000;

  /** A status answer this long after its poll was sent was held, and answered by a wake. */
  static final long WOKEN_MILLIS = 20;

  private static final String BROWSER_HEADER = "X-Soak-Browser";

  private static final Pattern TICKET = Pattern.compile("room_ticket=([^;]*)");
  private static final Pattern SESSION = Pattern.compile("room_session=([^;]*)");
  private static final Pattern POLL_AFTER = Pattern.compile("\"poll_after_ms\":(\\d+)");

  private final int seconds;
  private final int browsers;
  private final int arriveSeconds;
  private final double abandon;
  private final int capacity;
  private final int minMs;
  private final int maxMs;
  private final boolean sessions;
  private final int offerTimeout;

  private final AtomicInteger originInFlight = new AtomicInteger();
  private final AtomicInteger liveWaiting = new AtomicInteger(); // polling, not yet told ready
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private final AtomicLong overCapacity = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong served = new AtomicLong();
  private final AtomicLong polls = new AtomicLong();
  private final AtomicLong held = new AtomicLong();
  private final ConcurrentLinkedQueue<Long> freed = new ConcurrentLinkedQueue<>();
  private final long[] handover = new long[1 << 20];
  private final AtomicInteger handovers = new AtomicInteger();
  private final List<Browser> all = new ArrayList<>();
  // where a hand-over's time goes (told: the status answer saying ready; claim: told → origin)
  private final long[] claimLag = new long[1 << 20];
  private final AtomicInteger claims = new AtomicInteger();
  private final long[] timerLate = new long[1 << 20];
  private final AtomicInteger timersRun = new AtomicInteger();
  private final AtomicLong toldWoken = new AtomicLong(); // a held poll answered by a wake
  private final AtomicLong toldFresh = new AtomicLong(); // a poll that found its offer waiting
  private final AtomicLong[] freshAfter = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
  private final long[] freshGap = new long[1 << 20]; // previous answer → this poll sent
  private final AtomicInteger freshGaps = new AtomicInteger();

  private WaitingRoom room;
  private HttpClient client;
  private ScheduledExecutorService timers;
  private ScheduledExecutorService originTimer; // its own: browsers' work never delays the origin
  private String base;
  private long start;
  private volatile boolean running = true;

  SoakBenchmark(Map<String, String> o) {
    seconds = Integer.parseInt(o.getOrDefault("seconds", "45"));
    browsers = Integer.parseInt(o.getOrDefault("browsers", "3000"));
    arriveSeconds = Integer.parseInt(o.getOrDefault("arrive-seconds", "15"));
    abandon = Double.parseDouble(o.getOrDefault("abandon", "0.2"));
    capacity = Integer.parseInt(o.getOrDefault("capacity", "20"));
    minMs = Integer.parseInt(o.getOrDefault("min-ms", "50"));
    maxMs = Integer.parseInt(o.getOrDefault("max-ms", "500"));
    sessions = "sessions".equals(o.getOrDefault("mode", "admission"));
    offerTimeout = Integer.parseInt(o.getOrDefault("offer-timeout", "60"));
  }

  public static void main(String[] args) throws Exception {
    new SoakBenchmark(HttpBench.options(args)).run();
  }

  /** One simulated page. Its fields are touched by one callback at a time. */
  final class Browser {
    final int id;
    final boolean abandons;
    final long quitAt; // nanos; abandons stop polling from then on
    volatile String ticket;
    volatile String session;
    volatile long arrivedAt; // nanos, when its ticket arrived
    volatile long toldAt; // nanos, when it first saw ready:true
    volatile boolean done;
    volatile boolean quit;
    volatile long sentAt; // nanos, when its last poll was sent
    volatile long answeredAt; // nanos, when its last poll was answered
    volatile int lastKind; // its last poll's answer: 0 held to its timeout, 1 at once, 2 a 429
    volatile long originAt; // nanos, when its claim reached the origin

    Browser(int id, SplittableRandom r) {
      this.id = id;
      this.abandons = r.nextDouble() < abandon;
      this.quitAt = start + (long) (r.nextDouble() * seconds * 1e9);
    }

    void arrive() {
      get("/", this::page);
    }

    void page(Result result, int status, String body, String cookies) {
      if (result.isFailed()) {
        error("page", result, status);
        return;
      }
      remember(cookies);
      if (status == 200 && body.equals("origin")) {
        admitted();
        return;
      }
      if (ticket == null) {
        error("no ticket", result, status);
        return;
      }
      if (arrivedAt == 0) {
        arrivedAt = System.nanoTime();
        liveWaiting.incrementAndGet();
      }
      later(0, this::poll); // the page polls at once
    }

    void poll() {
      if (!running || (abandons && System.nanoTime() >= quitAt)) {
        if (abandons && !quit) {
          quit = true;
          liveWaiting.decrementAndGet();
        }
        return; // gone for good
      }
      polls.incrementAndGet();
      sentAt = System.nanoTime();
      get("/queue/status?wait=1", this::status);
    }

    void status(Result result, int status, String body, String cookies) {
      if (result.isFailed() || (status != 200 && status != 429)) {
        error("status", result, status);
        later(3000, this::poll);
        return;
      }
      remember(cookies);
      long now = System.nanoTime();
      long elapsedMs = (now - sentAt) / 1_000_000;
      if (body.contains("\"ready\":true")) {
        if (toldAt == 0) {
          toldAt = now;
          liveWaiting.decrementAndGet();
          if (elapsedMs >= WOKEN_MILLIS) {
            toldWoken.incrementAndGet();
          } else {
            toldFresh.incrementAndGet();
            freshAfter[lastKind].incrementAndGet();
            int i = freshGaps.getAndIncrement();
            if (answeredAt != 0 && i < freshGap.length) {
              freshGap[i] = sentAt - answeredAt;
            }
          }
        }
        get("/", this::page); // the reload is the claim
        return;
      }
      answeredAt = now;
      lastKind = status == 429 ? 2 : elapsedMs >= 900 ? 0 : 1;
      long delay;
      String retry = result.getResponse().getHeaders().get(HttpHeader.RETRY_AFTER);
      if (status == 429 && retry != null) {
        delay = Long.parseLong(retry.trim()) * 1000;
      } else {
        Matcher m = POLL_AFTER.matcher(body);
        long elapsed = (System.nanoTime() - sentAt) / 1_000_000;
        delay =
            m.find()
                ? Math.max(PAGE_POLL_FLOOR_MILLIS - elapsed, Long.parseLong(m.group(1)))
                : 3000;
      }
      later(delay, this::poll);
    }

    void admitted() {
      done = true;
      served.incrementAndGet();
      if (sessions) {
        long at = System.nanoTime();
        if (liveWaiting.get() >= capacity) {
          freed.add(at);
        }
        Request r = client.newRequest(base + "/queue/status/leave").method("POST");
        cookie(r);
        r.send(res -> {});
      }
    }

    void remember(String setCookie) {
      if (setCookie == null) {
        return;
      }
      Matcher t = TICKET.matcher(setCookie);
      if (t.find() && !t.group(1).isEmpty()) {
        ticket = t.group(1);
      }
      Matcher s = SESSION.matcher(setCookie);
      if (s.find() && !s.group(1).isEmpty()) {
        session = s.group(1);
      }
    }

    void cookie(Request r) {
      StringBuilder c = new StringBuilder();
      if (ticket != null) {
        c.append("room_ticket=").append(ticket);
      }
      if (session != null) {
        c.append(c.length() > 0 ? "; " : "").append("room_session=").append(session);
      }
      if (c.length() > 0) {
        r.headers(h -> h.put(HttpHeader.COOKIE, c.toString()));
      }
    }

    void get(String path, Handler h) {
      Request r = client.newRequest(base + path).timeout(10, TimeUnit.SECONDS);
      cookie(r);
      r.headers(hs -> hs.put(BROWSER_HEADER, Integer.toString(id)));
      r.send(
          new BufferingResponseListener(16 * 1024) {
            @Override
            public void onComplete(Result result) {
              if (!running) {
                return;
              }
              int status = result.getResponse() == null ? 0 : result.getResponse().getStatus();
              String cookies =
                  result.getResponse() == null
                      ? null
                      : String.join(
                          ",", result.getResponse().getHeaders().getValuesList("Set-Cookie"));
              h.handle(result, status, getContentAsString(StandardCharsets.UTF_8), cookies);
            }
          });
    }
  }

  interface Handler {
    void handle(Result result, int status, String body, String setCookies);
  }

  void error(String what, Result result, int status) {
    if (errors.incrementAndGet() <= 5) {
      Throwable f = result == null ? null : result.getFailure();
      System.out.println("  error: " + what + " status " + status + (f == null ? "" : " " + f));
    }
  }

  void later(long millis, Runnable r) {
    if (running) {
      long due = System.nanoTime() + millis * 1_000_000;
      timers.schedule(
          () -> {
            int i = timersRun.getAndIncrement();
            if (i < timerLate.length) {
              timerLate[i] = System.nanoTime() - due;
            }
            r.run();
          },
          millis,
          TimeUnit.MILLISECONDS);
    }
  }

  /** The origin: 50–500 ms per request, async, counting what is in flight at it. */
  final class Origin extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) {
      long at = System.nanoTime();
      int n = originInFlight.incrementAndGet();
      maxInFlight.accumulateAndGet(n, Math::max);
      if (n > capacity) {
        overCapacity.incrementAndGet();
      }
      String who = req.getHeader(BROWSER_HEADER);
      if (who != null) {
        Browser b = all.get(Integer.parseInt(who));
        if (b.toldAt != 0 && b.originAt == 0) {
          b.originAt = at;
          int i = claims.getAndIncrement();
          if (i < claimLag.length) {
            claimLag[i] = at - b.toldAt;
          }
        }
      }
      Long f = freed.poll();
      if (f != null) {
        int i = handovers.getAndIncrement();
        if (i < handover.length) {
          handover[i] = at - f;
        }
      }
      AsyncContext ctx = req.startAsync();
      ctx.setTimeout(0);
      long work = ThreadLocalRandom.current().nextLong(minMs, maxMs + 1);
      try {
        originTimer.schedule(
            () -> {
              try {
                res.setContentType("text/plain");
                res.getOutputStream().write("origin".getBytes(StandardCharsets.US_ASCII));
              } catch (Exception e) {
                errors.incrementAndGet();
              } finally {
                originInFlight.decrementAndGet();
                if (!sessions && liveWaiting.get() >= capacity) {
                  freed.add(System.nanoTime());
                }
                ctx.complete();
              }
            },
            work,
            TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        ctx.complete(); // the run is over
      }
    }
  }

  void run() throws Exception {
    WaitingRoom.Builder b =
        WaitingRoom.builder().capacity(capacity).offerTimeout(Duration.ofSeconds(offerTimeout));
    if (sessions) {
      b.admissionMode(AdmissionMode.SESSIONS);
    }
    room = b.build();
    QueuedThreadPool pool = new QueuedThreadPool(200, 8);
    pool.setName("soak-server");
    Server server = new Server(pool);
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setAcceptQueueSize(4096);
    server.addConnector(connector);
    ServletContextHandler ctx = new ServletContextHandler("/");
    ServletHolder origin = new ServletHolder(new Origin());
    origin.setAsyncSupported(true);
    ctx.addServlet(origin, "/*");
    FilterHolder filter = new FilterHolder(new WaitingRoomFilter(room));
    filter.setAsyncSupported(true);
    ctx.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
    server.setHandler(ctx);
    server.start();
    base = "http://127.0.0.1:" + connector.getLocalPort();

    QueuedThreadPool clientPool = new QueuedThreadPool(32, 4);
    clientPool.setName("soak-client");
    client = new HttpClient(new HttpClientTransportOverHTTP(1));
    client.setExecutor(clientPool);
    // Jetty's connection pool grows by copying: a few hundred keep-alive connections, reused.
    client.setMaxConnectionsPerDestination(256);
    client.setMaxRequestsQueuedPerDestination(1 << 16);
    client.setHttpCookieStore(new HttpCookieStore.Empty());
    client.setFollowRedirects(false);
    client.start();
    timers = Executors.newScheduledThreadPool(2);
    originTimer = Executors.newSingleThreadScheduledExecutor();

    start = System.nanoTime();
    SplittableRandom r = new SplittableRandom(16);
    for (int i = 0; i < browsers; i++) {
      all.add(new Browser(i, r)); // all of them first: the origin looks them up by id
    }
    for (int i = 0; i < browsers; i++) {
      long at = (long) ((double) i / browsers * arriveSeconds * 1000);
      timers.schedule(all.get(i)::arrive, at, TimeUnit.MILLISECONDS);
    }

    long samples = 0;
    long busySamples = 0;
    double inFlightSum = 0;
    double offersSum = 0;
    long deadline = start + seconds * 1_000_000_000L;
    long nextReport = start + 5_000_000_000L;
    while (System.nanoTime() < deadline) {
      Thread.sleep(10);
      samples++;
      if (liveWaiting.get() >= capacity) {
        busySamples++;
        inFlightSum += originInFlight.get();
        offersSum += room.outstandingOffers();
      }
      if (System.nanoTime() >= nextReport) {
        nextReport += 5_000_000_000L;
        System.out.printf(
            "  t=%3ds waiting %5d (live %5d)  origin in flight %2d  offers %2d  served %5d  polls %7d%n",
            (System.nanoTime() - start) / 1_000_000_000L,
            room.queueDepth(),
            liveWaiting.get(),
            originInFlight.get(),
            room.outstandingOffers(),
            served.get(),
            polls.get());
      }
    }
    running = false;
    long waitingAtEnd = liveWaiting.get();
    timers.shutdownNow();
    originTimer.shutdownNow();
    client.stop();
    server.stop();
    room.close();

    double util = busySamples == 0 ? Double.NaN : inFlightSum / busySamples / capacity;
    double offers = busySamples == 0 ? Double.NaN : offersSum / busySamples;
    int h = Math.min(handovers.get(), handover.length);
    long[] lat = Arrays.copyOf(handover, h);
    Arrays.sort(lat);
    double p50 = h == 0 ? Double.NaN : lat[h / 2] / 1e6;
    double p99 = h == 0 ? Double.NaN : lat[Math.min(h - 1, (int) (h * 0.99))] / 1e6;
    long order = orderViolations();
    System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    double busyShare = samples == 0 ? 0 : (double) busySamples / samples;

    System.out.printf(
        "soak: %d s, %d browsers over %d s, %.0f%% abandon, capacity %d, origin %d-%d ms, %s%n",
        seconds,
        browsers,
        arriveSeconds,
        abandon * 100,
        capacity,
        minMs,
        maxMs,
        sessions ? "SESSIONS" : "ADMISSION");
    System.out.printf(
        "  origin utilisation while >= capacity wait: %.3f (%.1f of %d in flight; %.1f offers"
            + " outstanding; %.0f%% of the run)%n",
        util, util * capacity, capacity, offers, busyShare * 100);
    System.out.printf(
        "  slot freed -> next origin request: median %.1f ms, p99 %.1f ms (%d hand-overs)%n",
        p50, p99, h);
    System.out.printf(
        "  served %d, still waiting (live) %d, polls %d, order violations %d, over capacity %d (max in"
            + " flight %d), errors %d, heap after GC %.0f MB%n",
        served.get(),
        waitingAtEnd,
        polls.get(),
        order,
        overCapacity.get(),
        maxInFlight.get(),
        errors.get(),
        heap / 1e6);
    long[] claim = sorted(claimLag, claims.get());
    long[] late = sorted(timerLate, timersRun.get());
    long[] gap = sorted(freshGap, freshGaps.get());
    System.out.printf(
        "  told ready: %d by a wake of a held poll, %d by a poll that found its offer waiting"
            + " (after a held poll's timeout %d, an at-once answer %d, a 429 %d; previous answer"
            + " → that poll sent: median %.0f ms, p99 %.0f ms)%n",
        toldWoken.get(),
        toldFresh.get(),
        freshAfter[0].get(),
        freshAfter[1].get(),
        freshAfter[2].get(),
        quantile(gap, 0.5),
        quantile(gap, 0.99));
    System.out.printf(
        "  told ready -> claim at the origin: median %.1f ms, p99 %.1f ms; load generator timers"
            + " late by median %.1f ms, p99 %.1f ms%n",
        quantile(claim, 0.5), quantile(claim, 0.99), quantile(late, 0.5), quantile(late, 0.99));
    System.out.printf("@@soak utilisation %.3f%n", util);
    System.out.printf("@@soak offers %.1f%n", offers);
    System.out.printf("@@soak handover_p50_ms %.1f%n", p50);
    System.out.printf("@@soak handover_p99_ms %.1f%n", p99);
    System.out.printf("@@soak served %d%n", served.get());
    System.out.printf("@@soak waiting_at_end %d%n", waitingAtEnd);
    System.out.printf("@@soak order_violations %d%n", order);
    System.out.printf("@@soak over_capacity %d%n", overCapacity.get());
    System.out.printf("@@soak errors %d%n", errors.get());
    System.out.printf("@@soak heap_mb %.0f%n", heap / 1e6);
    System.out.printf(
        "@@soak setup %d s, %d browsers over %d s, %.0f%% abandon, capacity %d, %d-%d ms, %s%n",
        seconds,
        browsers,
        arriveSeconds,
        abandon * 100,
        capacity,
        minMs,
        maxMs,
        sessions ? "SESSIONS" : "ADMISSION");
    System.exit(0);
  }

  private static long[] sorted(long[] a, int n) {
    long[] s = Arrays.copyOf(a, Math.min(n, a.length));
    Arrays.sort(s);
    return s;
  }

  /** The {@code q} quantile of sorted nanos, in ms. */
  private static double quantile(long[] sorted, double q) {
    return sorted.length == 0
        ? Double.NaN
        : sorted[Math.min(sorted.length - 1, (int) (sorted.length * q))] / 1e6;
  }

  /** The soak's section of RESULTS.md, from its {@code @@soak} lines. */
  static String markdown(List<String[]> lines, List<String> args) {
    Map<String, String> v = new java.util.HashMap<>();
    for (String[] l : lines) {
      if (l[0].equals("soak")) {
        v.put(l[1], l[2]);
      }
    }
    double util = Double.parseDouble(v.getOrDefault("utilisation", "NaN"));
    double p50 = Double.parseDouble(v.getOrDefault("handover_p50_ms", "NaN"));
    return "\n## Soak: keep the origin busy (issue 16)\n\n"
        + "`java -cp benchmarks/target/benchmarks.jar dev.room.bench.SoakBenchmark "
        + String.join(" ", args)
        + "`: "
        + v.getOrDefault("setup", "")
        + ".\n\n| measure | value | goal |\n|---|---|---|\n"
        + "| origin utilisation while ≥ capacity live browsers wait | "
        + v.get("utilisation")
        + " ("
        + v.get("offers")
        + " offers outstanding) | ≥ 0.9"
        + (util >= 0.9 ? "" : " — **missed**")
        + " |\n| slot freed → next origin request, median / p99 | "
        + v.get("handover_p50_ms")
        + " / "
        + v.get("handover_p99_ms")
        + " ms | ≤ 100 ms median"
        + (p50 <= 100 ? "" : " — **missed**")
        + " |\n| served / live still waiting at the end | "
        + v.get("served")
        + " / "
        + v.get("waiting_at_end")
        + " | |\n| order violations / over capacity / errors | "
        + v.get("order_violations")
        + " / "
        + v.get("over_capacity")
        + " / "
        + v.get("errors")
        + " | 0 / 0 / 0 |\n| heap after GC | "
        + v.get("heap_mb")
        + " MB | flat |\n";
  }

  /**
   * Live browsers (never abandoning) in arrival order: one told ready more than the slack after a
   * later arrival was, or never told while a later arrival was told more than the slack before the
   * end, counts once.
   */
  private long orderViolations() {
    long end = System.nanoTime();
    List<Browser> live = new ArrayList<>();
    for (Browser b : all) {
      if (!b.abandons && b.arrivedAt != 0) {
        live.add(b);
      }
    }
    live.sort((x, y) -> Long.compare(x.arrivedAt, y.arrivedAt));
    long slack = ORDER_SLACK_MILLIS * 1_000_000L;
    long violations = 0;
    // walking back to front: the earliest told-ready among later arrivals
    long earliestLater = Long.MAX_VALUE;
    for (int i = live.size() - 1; i >= 0; i--) {
      Browser b = live.get(i);
      long told = b.toldAt == 0 ? end : b.toldAt;
      if (earliestLater != Long.MAX_VALUE && told - earliestLater > slack) {
        violations++;
      }
      if (b.toldAt != 0) {
        earliestLater = Math.min(earliestLater, b.toldAt);
      }
    }
    return violations;
  }
}
