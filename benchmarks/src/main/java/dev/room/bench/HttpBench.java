package dev.room.bench;

import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.QoSHandler;

/**
 * HTTP on loopback: one embedded Jetty 12 server, one trivial servlet, the same load generator for
 * every variant, all in one run.
 *
 * <p><b>Gate</b> (issue part 2). The servlet answers {@code hello} behind:
 *
 * <ul>
 *   <li>{@code /plain} — nothing (the baseline);
 *   <li>{@code /room} — {@link WaitingRoomFilter} with {@value #LIMIT} slots, never all taken, so
 *       every request takes the fast path;
 *   <li>{@code /qosfilter} — Jetty's {@code QoSFilter} (ee10 servlet filter), {@code
 *       maxRequests=}{@value #LIMIT};
 *   <li>{@code /qoshandler} — Jetty's core {@code QoSHandler} wrapping the context, {@code
 *       maxRequestCount=}{@value #LIMIT}.
 * </ul>
 *
 * <p><b>Polls</b> (issue part 3). {@code /polls} is a room with its one slot taken and {@value
 * #QUEUED} synthetic clients waiting (issued on the engine before the run; their tokens are {@link
 * #ticket}{@code (1..QUEUED)}); the load generator sends {@code GET /polls/queue/status} with each
 * request carrying the next client's {@code room_ticket} cookie, so every client polls about once
 * per {@value #QUEUED} requests, well inside the 1-per-second poll limit. {@code /const} is a plain
 * servlet answering a constant status JSON of the same size with the same headers, driven by the
 * same cookie-rotating client. Every response must be a 200: a 429 (rate-limited poll) or any other
 * error is counted and reported.
 *
 * <p>Rounds interleave the variants ({@link #order}) so drifting machine load hits them alike; each
 * round yields one figure per variant and one ratio. Results go to standard output as {@code @@}
 * lines for {@link BenchDriver}. Run it alone with
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.room.bench.HttpBench --seconds 5 --rounds 5
 * </pre>
 */
public final class HttpBench {
  /** The concurrency limit of the room and of both Jetty limiters. */
  static final int LIMIT = 1_000;

  /** Clients waiting in the polled room. */
  static final int QUEUED = 100_000;

  /** Clients skipped between two runs of the ticket rotation; more than the connections. */
  static final int ROTATION_GAP = 1_000;

  /** The high half of every synthetic client's token (the low half is the client's number). */
  static final String TICKET_PREFIX = "9e3779b97f4a7c15";

  static final byte[] HELLO = "hello\n".getBytes(StandardCharsets.UTF_8);

  /**
   * The baseline's answer: a copy of the room's status JSON for the client in the middle of the
   * line, taken once before the load starts, so both sides send the same bytes.
   */
  static volatile byte[] constStatus = "{}".getBytes(StandardCharsets.UTF_8);

  static final List<String> GATE = List.of("plain", "room", "qosfilter", "qoshandler");
  static final List<String> POLLS = List.of("const", "polls");

  private HttpBench() {}

  /** Synthetic client {@code i}'s token (1-based). Synthetic, so safe to rebuild in a script. */
  static String ticket(long i) {
    return TICKET_PREFIX + String.format("%016x", i);
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = options(args);
    int seconds = Integer.parseInt(opt.getOrDefault("seconds", "5"));
    int warmup = Integer.parseInt(opt.getOrDefault("warmup", "3"));
    int rounds = Integer.parseInt(opt.getOrDefault("rounds", "5"));
    int connections = Integer.parseInt(opt.getOrDefault("connections", "32"));
    Path work = Files.createTempDirectory("room-http-bench");

    String wrk = opt.containsKey("java-load") ? null : WrkLoad.find();
    Load.Generator load =
        wrk != null ? new WrkLoad(wrk, connections, work) : new JavaLoad(connections);
    emit("info", "loader", load.describe());

    WaitingRoom gateRoom = WaitingRoom.create(LIMIT);
    InMemoryLine pollLine = new InMemoryLine(1);
    WaitingRoom pollRoom = pollRoom(pollLine);
    Server server = server(gateRoom, pollRoom);
    server.start();
    try {
      int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
      String base = "http://127.0.0.1:" + port;
      verify(base);
      constStatus = statusBody(base, QUEUED / 2).getBytes(StandardCharsets.UTF_8);
      emit("info", "status_bytes", Integer.toString(constStatus.length));
      emit("info", "const_bytes", Integer.toString(constStatus.length));

      run(load, base, GATE, "gate", "/", 0, warmup, seconds, rounds);
      run(load, base, POLLS, "polls", "/queue/status", QUEUED, warmup, seconds, rounds);

      emit("check", "gate_in_flight_after", Integer.toString(gateRoom.inFlight()));
      emit("check", "polls_depth_after", Long.toString(pollRoom.queueDepth()));
      if (gateRoom.inFlight() != 0 || pollRoom.queueDepth() != QUEUED) {
        throw new IllegalStateException("rooms changed under load");
      }
    } finally {
      server.stop();
      gateRoom.close();
      pollRoom.close();
    }
  }

  /** Warms every variant, then runs interleaved rounds. */
  private static void run(
      Load.Generator load,
      String base,
      List<String> variants,
      String part,
      String path,
      int rotate,
      int warmup,
      int seconds,
      int rounds)
      throws Exception {
    // Where the ticket rotation goes on from, skipping the requests still in flight when a run
    // stopped (sent, never counted) so that no client is polled twice within a second.
    long next = 0;
    for (String v : variants) {
      Load l = load.run(base + "/" + v + path, warmup, rotate, next);
      next += l.requests() + ROTATION_GAP;
    }
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < variants.size(); k++) {
        String v = variants.get(order(r, k, variants.size()));
        Load l = load.run(base + "/" + v + path, seconds, rotate, next);
        next += l.requests() + ROTATION_GAP;
        emit(
            part,
            v,
            "round=%d rps=%.1f p50us=%.1f p99us=%.1f requests=%d non2xx=%d errors=%d"
                .formatted(
                    r,
                    l.requestsPerSecond(),
                    l.p50Micros(),
                    l.p99Micros(),
                    l.requests(),
                    l.non2xx(),
                    l.errors()));
      }
    }
  }

  /**
   * The variant run {@code k}-th in round {@code r}: the order rotates every two rounds and every
   * odd round runs the previous round's order backwards, so load drifting steadily across a pair of
   * rounds favours no variant.
   */
  static int order(int r, int k, int n) {
    int start = r / 2;
    int position = r % 2 == 0 ? k : n - 1 - k;
    return (start + position) % n;
  }

  /** A room with its only slot held and {@value #QUEUED} synthetic clients waiting. */
  private static WaitingRoom pollRoom(InMemoryLine line) {
    if (!line.tryEnter()) {
      throw new IllegalStateException("a fresh line must admit");
    }
    Duration ttl = Duration.ofHours(1);
    WaitingRoom room = WaitingRoom.builder().line(line).tokenTtl(ttl).build();
    // The room's policy for this TTL: polls 1/s, cookie refresh after ttl/3, 60 s offers.
    Policy policy = new Policy(ttl.toMillis(), 0, 1000, ttl.toMillis() / 3, 60_000, 0);
    long now = System.currentTimeMillis();
    long hi = Tokens.hi(ticket(1));
    for (int i = 1; i <= QUEUED; i++) {
      long o = line.arrive(hi, i, "", false, now, policy);
      if (Outcome.kind(o) != Outcome.WAITING || Outcome.position(o) != i) {
        throw new IllegalStateException("synthetic client " + i + " not queued at " + i);
      }
    }
    return room;
  }

  @SuppressWarnings("deprecation") // QoSFilter is deprecated in Jetty 12 in favour of QoSHandler
  private static Server server(WaitingRoom gateRoom, WaitingRoom pollRoom) {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);

    ContextHandlerCollection contexts = new ContextHandlerCollection();
    contexts.addHandler(context("/plain", new Hello()));

    ServletContextHandler room = context("/room", new Hello());
    FilterHolder roomFilter = new FilterHolder(new WaitingRoomFilter(gateRoom));
    roomFilter.setAsyncSupported(true);
    room.addFilter(roomFilter, "/*", EnumSet.of(DispatcherType.REQUEST));
    contexts.addHandler(room);

    ServletContextHandler qosFilter = context("/qosfilter", new Hello());
    FilterHolder qos = new FilterHolder(new org.eclipse.jetty.ee10.servlets.QoSFilter());
    qos.setInitParameter("maxRequests", Integer.toString(LIMIT));
    qos.setAsyncSupported(true);
    qosFilter.addFilter(qos, "/*", EnumSet.of(DispatcherType.REQUEST));
    contexts.addHandler(qosFilter);

    QoSHandler qosHandler = new QoSHandler(context("/qoshandler", new Hello()));
    qosHandler.setMaxRequestCount(LIMIT);
    contexts.addHandler(qosHandler);

    ServletContextHandler polls = context("/polls", new Hello());
    FilterHolder pollFilter = new FilterHolder(new WaitingRoomFilter(pollRoom));
    pollFilter.setAsyncSupported(true);
    polls.addFilter(pollFilter, "/*", EnumSet.of(DispatcherType.REQUEST));
    contexts.addHandler(polls);

    contexts.addHandler(context("/const", new ConstStatus()));
    server.setHandler(contexts);
    return server;
  }

  private static ServletContextHandler context(String path, HttpServlet servlet) {
    ServletContextHandler ctx = new ServletContextHandler(path);
    ctx.addServlet(servlet, "/*");
    return ctx;
  }

  /** Fails unless every variant answers 200 with the expected body. */
  private static void verify(String base) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    for (String v : GATE) {
      HttpResponse<String> r = get(client, base + "/" + v + "/", null);
      if (r.statusCode() != 200 || !r.body().equals("hello\n")) {
        throw new IllegalStateException(v + " answered " + r.statusCode());
      }
    }
    HttpResponse<String> c = get(client, base + "/const/queue/status", ticket(QUEUED));
    if (c.statusCode() != 200) {
      throw new IllegalStateException("const answered " + c.statusCode());
    }
    String last = statusBody(base, QUEUED);
    String position = "\"position\":" + QUEUED;
    boolean waiting =
        last.startsWith("{\"ready\":false")
            && (last.contains(position + ",") || last.contains(position + "}"));
    if (!waiting) {
      throw new IllegalStateException("the last client is not told it waits at " + QUEUED);
    }
  }

  /** The status body one synthetic client gets (one poll; counts against its poll limit). */
  private static String statusBody(String base, int client) throws Exception {
    HttpResponse<String> r =
        get(HttpClient.newHttpClient(), base + "/polls/queue/status", ticket(client));
    if (r.statusCode() != 200) {
      throw new IllegalStateException("status poll answered " + r.statusCode());
    }
    return r.body();
  }

  private static HttpResponse<String> get(HttpClient client, String url, String ticket)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (ticket != null) {
      b.header("Cookie", "room_ticket=" + ticket);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static void emit(String kind, String name, String value) {
    System.out.println("@@" + kind + " " + name + " " + value);
    System.out.flush();
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + args[i]);
      }
      String key = args[i].substring(2);
      if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        m.put(key, args[++i]);
      } else {
        m.put(key, "true");
      }
    }
    return m;
  }

  /** The servlet every gate variant runs: a six-byte text body. */
  static final class Hello extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      res.setStatus(200);
      res.setContentType("text/plain");
      res.setContentLength(HELLO.length);
      res.getOutputStream().write(HELLO);
    }
  }

  /** The status-poll baseline: the status endpoint's headers and a copy of its body. */
  static final class ConstStatus extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      res.setStatus(200);
      res.setContentType("application/json");
      res.setHeader("Cache-Control", "no-store");
      byte[] body = constStatus;
      res.setContentLength(body.length);
      res.getOutputStream().write(body);
    }
  }
}
