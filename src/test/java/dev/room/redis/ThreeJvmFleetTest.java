package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.room.Browser;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 15's fleet, as an operator runs it: three app instances in three JVMs ({@link FleetNode},
 * each an embedded Jetty) on one real redis-server, simulated browsers sending each request to the
 * next instance round robin, no stickiness. One scenario a test, each asserting its promise: steady
 * state, {@code kill -9} of an instance holding slots, Redis restarted with and without persistence
 * and with fail-open, SESSIONS across the fleet, and pause, announcement and rate set on one
 * instance and in force on all.
 *
 * <p>The JVMs start once for the class (their start is the cost); each test opens a room of its own
 * on all three and closes it after. The instances run on real time, so what they promise "within" a
 * time is waited for with a bounded deadline, never slept for; a promise that something does not
 * happen for a while is watched for that while. The instances are stopped by PID, the killed one
 * with SIGKILL; a test finding one dead starts a new one.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ThreeJvmFleetTest {
  private static final long BOUND_MILLIS = 15_000;

  /**
   * How soon a control set on one instance must be in force on another: within about a second (each
   * reads the controls at most once a second on its request path), with room for a loaded machine.
   */
  private static final long ADOPTION_MILLIS = 5_000;

  /**
   * The lease TTL of the scenario that kills an instance: the shortest allowed, so its slots come
   * back soon. The other scenarios keep the default (15 s): on a machine this loaded a heartbeat
   * can be late by seconds, and a lease lapsing under a live instance (the documented overshoot of
   * a frozen instance) is not what they check.
   */
  private static final long LEASE_MILLIS = 3000;

  private static final Pattern POSITION = Pattern.compile("\"position\":(\\d+)");
  private static final Pattern STATE = Pattern.compile("\"state\":\"([a-z_]+)\"");

  /** One instance's JVM and its admin port. */
  private record Node(Process process, int admin, String name, Path log) {}

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final List<Node> NODES = new ArrayList<>(List.of());
  private static final List<Process> STARTED = new ArrayList<>();
  private static RedisServer redis;
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static int starts;

  /** The room the running test opened: its id and its app port on each instance. */
  private String room;

  private int[] apps;
  private int next;

  @BeforeAll
  static void startFleet() throws Exception {
    redis = RedisServer.start();
    client = RedisClient.create(redis.uri());
    connection = client.connect();
    List<Starting> starting = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      starting.add(launch(n)); // side by side: the JVMs' start is the cost
    }
    for (Starting s : starting) {
      NODES.add(s.ready());
    }
    // The first room a JVM opens pays for loading Lettuce, the scripts and Jetty's classes, which
    // on a loaded machine takes seconds: paid here, outside every scenario.
    for (Node n : NODES) {
      String warm = "warm-" + UUID.randomUUID();
      String port = adminCall(n, warm, "/open", "redis", redis.uri(), "capacity", "1").body();
      new Browser().get("http://127.0.0.1:" + Integer.parseInt(port) + "/app?who=warm");
      adminCall(n, warm, "/close");
    }
  }

  /** A JVM started, not yet serving. */
  private record Starting(Process process, String name, Path log) {
    Node ready() throws Exception {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      String line = CompletableFuture.supplyAsync(() -> readyLine(out)).get(90, TimeUnit.SECONDS);
      return new Node(process, Integer.parseInt(line.split(" ")[1]), name, log);
    }
  }

  private static Starting launch(int n) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String name = "jvm-" + n + "-" + starts++;
    Path dir = Files.createDirectories(Path.of("target", "fleet-logs"));
    Path log = dir.resolve(name + "-" + ProcessHandle.current().pid() + ".log");
    Process p =
        new ProcessBuilder(
                java,
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                FleetNode.class.getName(),
                name)
            .redirectError(log.toFile())
            .start();
    STARTED.add(p);
    return new Starting(p, name, log);
  }

  private static String readyLine(BufferedReader out) {
    try {
      String l;
      while ((l = out.readLine()) != null) {
        if (l.startsWith("READY ")) {
          return l;
        }
      }
      throw new IllegalStateException("the instance exited before it was ready");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  static void stopFleet() throws Exception {
    for (Process p : STARTED) {
      ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    for (Process p : STARTED) {
      p.waitFor(20, TimeUnit.SECONDS);
    }
    if (connection != null) {
      connection.close();
      client.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  /** Every test finds three live instances: one killed by an earlier test is replaced. */
  @BeforeEach
  void threeLiveInstances() throws Exception {
    for (int n = 0; n < NODES.size(); n++) {
      if (!NODES.get(n).process().isAlive()) {
        NODES.set(n, launch(n).ready());
      }
    }
  }

  @AfterEach
  void closeRoom() throws Exception {
    if (!redis.running()) {
      redis.restart(); // a test that failed during an outage leaves Redis up for the next
    }
    if (room == null) {
      return;
    }
    for (Node n : NODES) {
      if (n.process().isAlive()) {
        adminCall(n, room, "/close");
      }
    }
  }

  // ── The fleet ────────────────────────────────────────────────────────────

  /** Opens a new room on all three instances. */
  private void open(int capacity, String mode, boolean failOpen) throws Exception {
    open(capacity, mode, failOpen, RedisLine.DEFAULT_LEASE_TTL.toMillis());
  }

  private void open(int capacity, String mode, boolean failOpen, long leaseMillis)
      throws Exception {
    room = "fleet-" + UUID.randomUUID();
    apps = new int[NODES.size()];
    for (int n = 0; n < NODES.size(); n++) {
      String port =
          admin(
              n,
              "/open",
              "redis",
              redis.uri(),
              "capacity",
              Integer.toString(capacity),
              "mode",
              mode,
              "failOpen",
              Boolean.toString(failOpen),
              "lease",
              Long.toString(leaseMillis / 1000));
      apps[n] = Integer.parseInt(port);
    }
    await("every instance connected", BOUND_MILLIS * 4, unchecked(() -> allConnected()));
  }

  /** How many leases the room's instances took: 3 unless one lapsed under a live instance. */
  private String registrations() {
    return connection.sync().hget(key("meta"), "gen");
  }

  private String key(String name) {
    return "{room:" + room + "}:" + name;
  }

  private String admin(int n, String path, String... params) throws Exception {
    HttpResponse<String> r = adminCall(NODES.get(n), room, path, params);
    assertEquals(200, r.statusCode(), NODES.get(n).name() + path + ": " + r.body());
    return r.body();
  }

  private static HttpResponse<String> adminCall(Node n, String room, String path, String... params)
      throws Exception {
    StringBuilder q = new StringBuilder(path).append("?room=");
    q.append(URLEncoder.encode(room, StandardCharsets.UTF_8));
    for (int i = 0; i < params.length; i += 2) {
      q.append('&').append(params[i]).append('=');
      q.append(URLEncoder.encode(params[i + 1], StandardCharsets.UTF_8));
    }
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.admin() + q))
            .timeout(Duration.ofSeconds(90)) // opening a room connects to Redis
            .build();
    return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
  }

  private int number(int n, String path) throws Exception {
    return Integer.parseInt(admin(n, path));
  }

  private int sum(String path) throws Exception {
    int s = 0;
    for (int n = 0; n < NODES.size(); n++) {
      if (NODES.get(n).process().isAlive()) {
        s += number(n, path);
      }
    }
    return s;
  }

  /** The next live instance, round robin: no two requests in a row on one instance. */
  private int nextNode() {
    for (int i = 0; i < NODES.size(); i++) {
      int n = next++ % NODES.size();
      if (NODES.get(n).process().isAlive()) {
        return n;
      }
    }
    throw new AssertionError("no live instance");
  }

  private String url(int n, String path) {
    return "http://127.0.0.1:" + apps[n] + path;
  }

  /** A browser's request to the next instance; no answer of the room is ever a 5xx but a 503. */
  private HttpResponse<String> get(Browser b, String path) throws Exception {
    return get(b, nextNode(), path);
  }

  private HttpResponse<String> get(Browser b, int n, String path) throws Exception {
    HttpResponse<String> r = b.get(url(n, path));
    noServerError(r);
    return r;
  }

  private HttpResponse<String> status(Browser b) throws Exception {
    return status(b, nextNode());
  }

  private HttpResponse<String> status(Browser b, int n) throws Exception {
    HttpResponse<String> r = b.get(url(n, "/queue/status"), "application/json");
    noServerError(r);
    return r;
  }

  private static void noServerError(HttpResponse<String> r) {
    assertTrue(r.statusCode() < 500 || r.statusCode() == 503, r.statusCode() + " " + r.body());
  }

  /** The position in a status body; 0 when ready. */
  private static long position(HttpResponse<String> status) {
    String body = status.body();
    if (body.startsWith("{\"ready\":true")) {
      return 0;
    }
    Matcher m = POSITION.matcher(body);
    if (!m.find()) {
      throw new AssertionError("no position in " + status.statusCode() + " " + body);
    }
    return Long.parseLong(m.group(1));
  }

  /**
   * Whether a poll says ready; a 503 (the instance found Redis too slow to answer within its
   * command timeout, as a loaded machine can make it) is no answer yet.
   */
  private static boolean ready(HttpResponse<String> status) {
    return status.statusCode() != 503 && position(status) == 0;
  }

  private static String state(HttpResponse<String> status) {
    Matcher m = STATE.matcher(status.body());
    return m.find() ? m.group(1) : "";
  }

  /** Waits, bounded, until {@code done}; fails naming {@code what}. Returns the millis it took. */
  private static long await(String what, long boundMillis, BooleanSupplier done) {
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(boundMillis);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail(what + ": not within " + boundMillis + " ms");
      }
      Thread.onSpinWait();
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private interface Check {
    boolean test() throws Exception;
  }

  private static BooleanSupplier unchecked(Check c) {
    return () -> {
      try {
        return c.test();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };
  }

  /** A request that runs until released ({@code park=1}), sent in the background. */
  private CompletableFuture<HttpResponse<String>> enter(Browser b, int n, String who) {
    HttpRequest req = // parked until released: longer than a browser's usual timeout
        HttpRequest.newBuilder(URI.create(url(n, "/app?park=1&who=" + who)))
            .timeout(Duration.ofSeconds(120))
            .header("Accept", "text/html")
            .build();
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return b.send(req);
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** Sends {@code who} in on instance {@code n} (a free slot) and waits until it holds it. */
  private CompletableFuture<HttpResponse<String>> holder(Browser b, int n, String who)
      throws Exception {
    CompletableFuture<HttpResponse<String>> r = enter(b, n, who);
    await(
        who + " runs on " + n,
        BOUND_MILLIS,
        unchecked(() -> admin(n, "/parked", "who", who).equals("true") || r.isDone()));
    assertFalse(r.isDone(), who + " was not let in: " + (r.isDone() ? r.get().body() : ""));
    return r;
  }

  /** Releases {@code who}'s parked request, wherever it runs. */
  private void release(String who) throws Exception {
    for (int n = 0; n < NODES.size(); n++) {
      if (NODES.get(n).process().isAlive() && admin(n, "/release", "who", who).equals("true")) {
        return;
      }
    }
    fail(who + " is parked nowhere");
  }

  /** A newcomer queued behind a full room (its first request on the next instance). */
  private Browser waiter(String who) throws Exception {
    Browser b = new Browser();
    HttpResponse<String> r = get(b, "/app?park=1&who=" + who);
    assertEquals(200, r.statusCode(), r.body());
    assertFalse(r.body().startsWith("app:"), who + " should wait: " + r.body());
    assertTrue(b.cookie("room_ticket") != null, "a ticket for " + who);
    return b;
  }

  /**
   * Polls {@code b} (round robin) until it is told it is ready; returns the millis it took. An
   * instance still reconnecting to Redis (503) is not an answer yet.
   */
  private long awaitReady(String what, Browser b, long boundMillis) {
    return await(
        what,
        boundMillis,
        unchecked(
            () -> {
              HttpResponse<String> s = status(b);
              return s.statusCode() != 503 && position(s) == 0;
            }));
  }

  private boolean allConnected() throws Exception {
    for (int n = 0; n < NODES.size(); n++) {
      if (!admin(n, "/connected").equals("true")) {
        return false;
      }
    }
    return true;
  }

  /** Waits until every instance answers {@code b}'s poll from Redis again (no 503). */
  private void awaitReconnected(Browser b) {
    for (int n = 0; n < NODES.size(); n++) {
      int node = n;
      await(
          "instance " + n + " reconnected",
          BOUND_MILLIS,
          unchecked(() -> status(b, node).statusCode() != 503));
    }
  }

  /** Every instance, and the test's own count of what the shops run, within capacity. */
  private void withinCapacity(int capacity) throws Exception {
    int running = sum("/running");
    assertTrue(running <= capacity, running + " requests run, capacity " + capacity);
    for (int n = 0; n < NODES.size(); n++) {
      if (NODES.get(n).process().isAlive()) {
        int f = number(n, "/inflight");
        assertTrue(f <= capacity, "inFlight() " + f + " on " + n);
      }
    }
    String inflight = connection.sync().hget(key("meta"), "inflight");
    assertTrue(inflight == null || Integer.parseInt(inflight) <= capacity, "Redis: " + inflight);
  }

  /** Who each instance's shop ran, {@code who → millis}, over the whole fleet. */
  private List<String[]> admitted() throws Exception {
    List<String[]> all = new ArrayList<>();
    for (int n = 0; n < NODES.size(); n++) {
      if (NODES.get(n).process().isAlive()) {
        String s = admin(n, "/admitted");
        if (!s.isEmpty()) {
          for (String e : s.split(",")) {
            all.add(e.split("@"));
          }
        }
      }
    }
    all.sort(Comparator.comparingLong(e -> Long.parseLong(e[1])));
    return all;
  }

  // ── Scenarios ────────────────────────────────────────────────────────────

  /**
   * Twelve browsers at once on three instances, capacity 3: three run, nine wait; each slot freed
   * goes to the first in line, wherever it polls; everyone is let in once, in line order; the
   * fleet's in-flight never exceeds the capacity.
   */
  @Test
  @Order(1)
  void steadyStateKeepsTheCapacityAndTheOrderAndLetsEachClientInOnce() throws Exception {
    int capacity = 3;
    open(capacity, "requests", false);
    List<Browser> browsers = new ArrayList<>();
    List<CompletableFuture<HttpResponse<String>>> first = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Browser b = new Browser();
      browsers.add(b);
      first.add(enter(b, i % 3, "v" + i)); // all at once, spread over the fleet
    }
    await(
        "three run and nine wait",
        BOUND_MILLIS,
        unchecked(
            () ->
                first.stream().filter(CompletableFuture::isDone).count() == 9
                    && sum("/running") == capacity));
    withinCapacity(capacity);
    List<Integer> line = new ArrayList<>(); // the waiters, in line order
    Map<Long, Integer> byPosition = new HashMap<>();
    for (int i = 0; i < 12; i++) {
      if (first.get(i).isDone()) {
        HttpResponse<String> r = first.get(i).get();
        assertEquals(200, r.statusCode(), r.body());
        long p = position(status(browsers.get(i)));
        assertTrue(
            p >= 1 && p <= 9 && byPosition.put(p, i) == null,
            "position " + p + "; lease registrations " + registrations());
      }
    }
    for (long p = 1; p <= 9; p++) {
      line.add(byPosition.get(p));
    }

    List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
    List<String> runningWho = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      if (!first.get(i).isDone()) {
        running.add(first.get(i));
        runningWho.add("v" + i);
      }
    }
    for (int k = 0; k < line.size(); k++) {
      release(runningWho.remove(0));
      int head = line.get(k);
      awaitReady("v" + head + " gets the freed slot", browsers.get(head), BOUND_MILLIS);
      for (int j = k + 1; j < line.size(); j++) {
        assertEquals(j - k, position(status(browsers.get(line.get(j)))), "only moved up by one");
      }
      running.add(holder(browsers.get(head), nextNode(), "v" + head));
      runningWho.add("v" + head);
      withinCapacity(capacity);
    }
    while (!runningWho.isEmpty()) {
      release(runningWho.remove(0));
    }
    for (CompletableFuture<HttpResponse<String>> r : running) {
      assertTrue(r.get(30, TimeUnit.SECONDS).body().startsWith("app:"));
    }
    List<String> order = admitted().stream().map(e -> e[0]).toList();
    assertEquals(12, order.size(), "each client let in once: " + order);
    assertEquals(12, new HashSet<>(order).size(), "each client let in once: " + order);
    List<String> waiters = order.subList(3, 12);
    assertEquals(line.stream().map(i -> "v" + i).toList(), waiters, "in line order");
    await("every slot back", BOUND_MILLIS, unchecked(() -> sum("/inflight") == 0));
  }

  /**
   * Redis stops (AOF on) with two requests running and three in line, and starts again: while it is
   * down nobody is let in and every answer is a 503 that keeps the place; once it is back the line
   * is as it was, the release lost to the outage comes back, and the room goes on.
   */
  @Test
  @Order(2)
  void aRedisRestartWithPersistenceKeepsTheLineAndTheRoomGoesOn() throws Exception {
    open(2, "requests", false);
    var h1 = holder(new Browser(), 0, "h1");
    var h2 = holder(new Browser(), 1, "h2");
    List<Browser> line = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      line.add(waiter("w" + i));
      assertEquals(i, position(status(line.get(i - 1))));
    }

    redis.stop();
    for (int n = 0; n < 3; n++) {
      HttpResponse<String> poll = status(line.get(0), n);
      assertEquals(503, poll.statusCode(), poll.body());
      assertEquals("{\"ready\":false,\"reconnecting\":true}", poll.body());
      HttpResponse<String> newcomer = get(new Browser(), n, "/app?who=late");
      assertEquals(503, newcomer.statusCode(), "nobody let in while Redis is down");
      assertTrue(newcomer.headers().firstValue("Retry-After").isPresent());
    }
    release("h1"); // its release cannot reach Redis
    assertEquals(200, h1.get(30, TimeUnit.SECONDS).statusCode());

    redis.restart();
    awaitReconnected(line.get(2));
    awaitReady("the lost release came back to w1", line.get(0), BOUND_MILLIS);
    assertEquals(1, position(status(line.get(1))), "the line survived the restart");
    assertEquals(2, position(status(line.get(2))));
    var w1 = holder(line.get(0), nextNode(), "w1");
    withinCapacity(2);
    release("h2");
    awaitReady("the room is not frozen: w2", line.get(1), BOUND_MILLIS);
    var w2 = holder(line.get(1), nextNode(), "w2");
    withinCapacity(2);
    release("w1");
    release("w2");
    assertEquals("app:w1", w1.get(30, TimeUnit.SECONDS).body());
    assertEquals("app:w2", w2.get(30, TimeUnit.SECONDS).body());
    assertEquals(200, h2.get(30, TimeUnit.SECONDS).statusCode());
    List<String> order = admitted().stream().map(e -> e[0]).toList();
    assertEquals(List.of("h1", "h2", "w1", "w2"), order);
  }

  /**
   * Redis comes back empty (no persistence): every instance notices (its metric), re-sends the
   * capacity and backs the requests it still runs, so the room neither freezes nor lets more in
   * than the capacity; a waiting visitor's next poll is no error, and it joins again.
   */
  @Test
  @Order(3)
  void aRedisRestartWithoutPersistenceNeitherFreezesNorOverfillsTheRoom() throws Exception {
    open(2, "requests", false);
    var h1 = holder(new Browser(), 0, "h1");
    var h2 = holder(new Browser(), 1, "h2");
    Browser w1 = waiter("w1");
    Browser w2 = waiter("w2");

    redis.stop();
    redis.restartEmpty();
    await("every instance counts the loss", BOUND_MILLIS, unchecked(() -> sum("/losses") == 3));
    await(
        "the running requests hold their slots again",
        BOUND_MILLIS,
        unchecked(
            () ->
                "2".equals(connection.sync().hget(key("meta"), "inflight"))
                    && "2".equals(connection.sync().hget(key("meta"), "cap"))));
    HttpResponse<String> poll = status(w2);
    assertEquals(200, poll.statusCode(), "a lost place is no error: " + poll.body());
    assertEquals(200, get(w2, "/app?park=1&who=w2").statusCode(), "w2 joins again");
    assertEquals(200, get(w1, "/app?park=1&who=w1").statusCode());
    assertEquals(1, position(status(w2)), "w2 joined again first");
    assertEquals(2, position(status(w1)), "w1 behind");
    assertFalse(
        get(new Browser(), "/app?park=1&who=late").body().startsWith("app:"),
        "the capacity still holds");
    withinCapacity(2);

    release("h1");
    assertEquals(200, h1.get(30, TimeUnit.SECONDS).statusCode());
    awaitReady("the room is not frozen: w2", w2, BOUND_MILLIS);
    var w2in = holder(w2, nextNode(), "w2");
    withinCapacity(2);
    release("h2");
    awaitReady("w1 next", w1, BOUND_MILLIS);
    var w1in = holder(w1, nextNode(), "w1");
    withinCapacity(2);
    release("w2");
    release("w1");
    assertEquals("app:w2", w2in.get(30, TimeUnit.SECONDS).body());
    assertEquals("app:w1", w1in.get(30, TimeUnit.SECONDS).body());
    assertEquals(200, h2.get(30, TimeUnit.SECONDS).statusCode());
  }

  /**
   * A fail-open fleet: while Redis is down everyone is let in (no 500); the clients let in then
   * still had tickets near the front, and when Redis is back they are retired, so the newcomer who
   * kept waiting gets the next free slot rather than being stuck behind ghosts.
   */
  @Test
  @Order(4)
  void afterAFailOpenOutageNoGhostBlocksTheLine() throws Exception {
    open(1, "requests", true);
    var h = holder(new Browser(), 0, "h");
    Browser g1 = waiter("g1");
    Browser g2 = waiter("g2");
    Browser patient = waiter("n1");
    assertEquals(3, position(status(patient)));

    redis.stop();
    assertEquals("app:g1", get(g1, 1, "/app?who=g1").body(), "fail-open: let in");
    assertEquals("app:g2", get(g2, 2, "/app?who=g2").body());
    assertEquals("app:x", get(new Browser(), 0, "/app?who=x").body(), "a newcomer too");
    release("h"); // its release is lost to the outage
    assertEquals(200, h.get(30, TimeUnit.SECONDS).statusCode());

    redis.restart(); // the line survived (AOF): g1 and g2 are still in it, ahead of n1
    long back = System.nanoTime();
    // a fail-open instance still cut off would answer "ready" itself: wait until all are back
    await("every instance reconnected", BOUND_MILLIS, unchecked(() -> allConnected()));
    await("both ghosts retired", BOUND_MILLIS, unchecked(() -> sum("/ghosts") == 2));
    awaitReady("n1 is not blocked by ghosts", patient, BOUND_MILLIS);
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back);
    var in = holder(patient, nextNode(), "n1");
    withinCapacity(1);
    assertFalse(get(new Browser(), "/app?who=y").body().startsWith("app:"), "the room is full");
    release("n1");
    assertEquals("app:n1", in.get(30, TimeUnit.SECONDS).body());
    System.out.println("fail-open: n1 ready " + took + " ms after Redis was back");
  }

  /**
   * SESSIONS with every request on a different instance: one session per visitor, counted alike by
   * every instance and by Redis at every step, slots = sessions + offers ≤ capacity, and a
   * revocation and an {@code endSession} on one instance honoured by all within a poll interval.
   */
  @Test
  @Order(5)
  void sessionsAreTheFleetsWhicheverInstanceServesEachRequest() throws Exception {
    int capacity = 2;
    open(capacity, "sessions", false);
    Browser v = new Browser();
    String first = get(v, "/").body();
    assertTrue(first.startsWith("shop:") && first.length() == 37, first);
    String id = first.substring(5);
    for (int i = 0; i < 9; i++) {
      assertEquals(first, get(v, "/item/" + i).body(), "request " + i + ": one session");
      fleetHolds(1, 0, capacity);
    }

    Browser w = new Browser();
    String other = get(w, "/").body();
    assertTrue(other.startsWith("shop:") && !other.equals(first), other);
    fleetHolds(2, 0, capacity);
    Browser x = new Browser();
    assertFalse(get(x, "/").body().startsWith("shop:"), "full: a third visitor waits");
    fleetHolds(2, 0, capacity);

    String grant = v.cookie("room_session");
    get(v, "/ban"); // revoked on whichever instance is next
    fleetHolds(1, 1, capacity); // its slot is offered to x
    refusedEverywhere(v, id, grant);
    String xin = awaitSession(x);
    fleetHolds(2, 0, capacity);

    String wid = other.substring(5);
    assertEquals("true", admin(2, "/end", "id", wid));
    assertEquals("false", admin(0, "/end", "id", wid), "ended already, fleet-wide");
    assertEquals("false", admin(1, "/end", "id", wid));
    // v's refused requests joined the line again (a refused grant counts as none): its slot is
    // offered to the first of them
    fleetHolds(1, 1, capacity);
    refusedEverywhere(w, wid, w.cookie("room_session"));
    for (int i = 0; i < 3; i++) {
      assertEquals(xin, get(x, "/item/" + i).body(), "x's session on every instance");
    }
    fleetHolds(1, 1, capacity);
  }

  /** x claims its offer: polls until offered, then comes in (on another instance). */
  private String awaitSession(Browser x) throws Exception {
    awaitReady("x is offered the freed slot", x, BOUND_MILLIS);
    String body = get(x, "/").body();
    assertTrue(body.startsWith("shop:"), body);
    return body;
  }

  /**
   * Redis holds {@code sessions} sessions and their slots, and {@code offers} offers, and every
   * instance counts the same.
   */
  private void fleetHolds(int sessions, int offers, int capacity) throws Exception {
    RedisCommands<String, String> r = connection.sync();
    String held = r.hget(key("meta"), "sesheld");
    assertEquals(sessions, held == null ? 0 : Integer.parseInt(held), "slots Redis holds");
    assertEquals(sessions, r.zcard(key("sesx")).intValue(), "sessions in Redis");
    assertEquals(offers, r.zcard(key("ready")).intValue(), "offers in Redis");
    String inflight = r.hget(key("meta"), "inflight");
    assertEquals(
        sessions,
        inflight == null ? 0 : Integer.parseInt(inflight),
        "every slot in use a session's");
    assertTrue(sessions + offers <= capacity, "slots = sessions + offers ≤ capacity");
    for (int n = 0; n < NODES.size(); n++) {
      assertEquals(sessions, number(n, "/sessions"), "activeSessions() on " + n);
      assertEquals(offers, number(n, "/offers"), "outstandingOffers() on " + n);
    }
  }

  /** Every instance refuses the old grant, within the bound (a poll interval, waited for). */
  private void refusedEverywhere(Browser b, String id, String grant) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS);
    int refused = 0;
    while (refused < NODES.size()) {
      b.clearCookies(); // each instance judges the old grant afresh, not a new session's
      b.setCookie("http://127.0.0.1/", "room_session", grant);
      if (get(b, "/after").body().equals("shop:" + id)) {
        refused = 0;
        assertTrue(System.nanoTime() < deadline, "still honoured after the bound");
        Thread.onSpinWait();
      } else {
        refused++;
      }
    }
    b.clearCookies();
  }

  /**
   * Pause and announcement set on one instance, in force and shown on all: a paused fleet admits
   * nobody although a slot is free and another instance's admission rate refills (a pause wins),
   * the MODE event fires only where the pause was set, and the announcement shows everywhere.
   */
  @Test
  @Order(6)
  void aPauseAndAnAnnouncementSetOnOneInstanceAreInForceOnAll() throws Exception {
    open(1, "requests", false);
    var h = holder(new Browser(), 0, "h");
    Browser w1 = waiter("w1");
    Browser w2 = waiter("w2");

    admin(0, "/mode", "set", "PAUSED");
    for (int n = 1; n < 3; n++) {
      int node = n;
      long took =
          await(
              "paused shown on " + n,
              ADOPTION_MILLIS,
              unchecked(() -> state(status(w1, node)).equals("paused")));
      System.out.println("pause shown on instance " + n + " after " + took + " ms");
    }
    admin(1, "/rate", "set", "20"); // a refill of one token every 50 ms, on another instance
    release("h");
    assertEquals(200, h.get(30, TimeUnit.SECONDS).statusCode());
    long until = System.currentTimeMillis() + 3000; // 60 refills' worth
    int polls = 0;
    while (System.currentTimeMillis() < until) {
      HttpResponse<String> s = status(polls++ % 2 == 0 ? w1 : w2);
      assertNotEquals(0, position(s), "admitted while paused: " + s.body());
      assertEquals("paused", state(s), s.body());
      HttpResponse<String> newcomer = get(new Browser(), "/app?who=late" + polls);
      assertFalse(newcomer.body().startsWith("app:"), "a newcomer let in while paused");
    }
    assertEquals(0, sum("/running"));
    assertEquals("MODE:paused", admin(0, "/events", "type", "MODE"), "fired where it was set");
    assertEquals("", admin(1, "/events", "type", "MODE"), "and only there");
    assertEquals("", admin(2, "/events", "type", "MODE"));

    String note = "Back in five minutes " + UUID.randomUUID();
    admin(2, "/announce", "set", note);
    for (int n = 0; n < 2; n++) {
      int node = n;
      await(
          "the announcement on " + n,
          ADOPTION_MILLIS,
          unchecked(() -> status(w2, node).body().contains(note)));
    }

    admin(1, "/mode", "set", "OPEN");
    awaitReady("resumed: w1 gets the free slot", w1, BOUND_MILLIS);
    var in = holder(w1, nextNode(), "w1");
    withinCapacity(1);
    assertEquals(1, position(status(w2)), "w2 waits, first in line");
    release("w1");
    assertEquals("app:w1", in.get(30, TimeUnit.SECONDS).body());
    assertEquals("MODE:open", admin(1, "/events", "type", "MODE"));
    assertEquals("MODE:paused", admin(0, "/events", "type", "MODE"));
  }

  /**
   * An admission rate set on one instance is one budget for the fleet: with visitors arriving and
   * polling on all three instances, no more are admitted over a span of t seconds than the burst
   * plus r·t (within one token), where a rate applied by each instance alone would let in 3·r·t.
   */
  @Test
  @Order(7)
  void aRateSetOnOneInstanceIsOneGlobalBudget() throws Exception {
    double rate = 2;
    long burst = 2; // max(1, ⌈r⌉)
    open(1000, "requests", false);
    admin(0, "/rate", "set", Double.toString(rate));
    for (int n = 0; n < 3; n++) {
      int node = n;
      await(
          "the rate adopted on " + n,
          ADOPTION_MILLIS,
          unchecked(() -> admin(node, "/rate", "sync", "1").equals(Double.toString(rate))));
    }
    List<Browser> visitors = new ArrayList<>();
    Set<Integer> in = new HashSet<>();
    long end = System.currentTimeMillis() + 8000;
    int arrivals = 0;
    while (System.currentTimeMillis() < end) {
      if (arrivals < 40 && visitors.size() - in.size() < 5) { // enough demand, quick rounds
        Browser b = new Browser();
        String who = "v" + arrivals++;
        visitors.add(b);
        if (get(b, "/app?who=" + who).body().equals("app:" + who)) {
          in.add(visitors.size() - 1);
        }
      }
      for (int i = 0; i < visitors.size(); i++) {
        if (!in.contains(i) && ready(status(visitors.get(i)))) {
          assertEquals("app:v" + i, get(visitors.get(i), "/app?who=v" + i).body());
          in.add(i);
        }
      }
    }
    List<String[]> admitted = admitted();
    assertEquals(in.size(), admitted.size());
    long span =
        Long.parseLong(admitted.get(admitted.size() - 1)[1]) - Long.parseLong(admitted.get(0)[1]);
    double allowed = burst + rate * span / 1000.0;
    System.out.println(
        "rate: "
            + admitted.size()
            + " admitted over "
            + span
            + " ms at "
            + rate
            + "/s, burst "
            + burst
            + ": allowed "
            + allowed
            + " +1");
    assertTrue(
        admitted.size() <= allowed + 1,
        admitted.size() + " admitted over " + span + " ms; the global bucket allows " + allowed);
    // Not split between the instances either (r/3 each would admit a third). The test's own
    // visitors lose tokens to the burst cap whenever this loaded machine stalls them for a second,
    // so the lower side is checked at half the rate rather than within one token.
    assertTrue(
        admitted.size() >= rate * span / 1000.0 / 2,
        "the rate is one budget, not a split one: " + admitted.size() + " over " + span + " ms");
  }

  /**
   * {@code kill -9} of an instance holding two of three slots: they stay held while its lease is
   * live, and come back within the lease TTL of its last renewal (plus one survivor's heartbeat),
   * to the first two in line; everyone else only moves up, and nobody loses a ticket. Last, as it
   * costs a new JVM for any test after it.
   */
  @Test
  @Order(8)
  void aKilledInstancesSlotsReturnWithinTheLeaseTtlAndNobodysPlaceChanges() throws Exception {
    open(3, "requests", false, LEASE_MILLIS);
    holder(new Browser(), 0, "d1");
    holder(new Browser(), 0, "d2");
    var s1 = holder(new Browser(), 1, "s1");
    next = 1;
    List<Browser> line = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      line.add(waiter("w" + i));
    }
    for (int i = 0; i < 4; i++) {
      assertEquals(i + 1, position(status(line.get(i))));
    }
    RedisCommands<String, String> r = connection.sync();
    String gen =
        r.hgetall(key("owners")).entrySet().stream()
            .filter(e -> e.getValue().equals(NODES.get(0).name()))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElseThrow();
    assertEquals("2", r.hget(key("held"), gen), "the doomed instance holds two slots");

    Process doomed = NODES.get(0).process();
    ProcessHandle.of(doomed.pid()).orElseThrow().destroyForcibly(); // SIGKILL
    assertTrue(doomed.waitFor(20, TimeUnit.SECONDS));
    long killed = System.currentTimeMillis();
    Double expiry = r.zscore(key("leases"), gen);
    long expires = expiry == null ? killed : expiry.longValue();
    assertTrue(expires <= killed + LEASE_MILLIS, "a lease runs at most one TTL past its renewal");
    while (System.currentTimeMillis() < expires - 500) {
      assertEquals(1, position(status(line.get(0))), "held while its lease is live");
    }
    long w1 = awaitReady("w1 gets a returned slot", line.get(0), BOUND_MILLIS);
    long w2 = awaitReady("w2 gets the other", line.get(1), BOUND_MILLIS);
    long back = System.currentTimeMillis();
    System.out.println(
        "kill -9: lease expired "
            + (expires - killed)
            + " ms after the kill, slots back by "
            + (back - killed)
            + " ms (w1 "
            + w1
            + ", w2 "
            + w2
            + ")");
    assertTrue(
        back - killed <= LEASE_MILLIS + 1000 + 2000,
        "slots back " + (back - killed) + " ms after the kill, lease TTL " + LEASE_MILLIS);
    assertEquals(
        1,
        position(status(line.get(2))),
        "w3 only moved up; lease registrations " + registrations());
    assertEquals(2, position(status(line.get(3))));
    assertEquals(4, Long.parseLong(admin(1, "/depth")), "nobody lost a ticket");
    assertEquals(1, number(1, "/inflight"), "only s1 holds a slot");

    var w1in = holder(line.get(0), nextNode(), "w1");
    var w2in = holder(line.get(1), nextNode(), "w2");
    withinCapacity(3);
    for (String who : List.of("s1", "w1", "w2")) {
      release(who);
    }
    assertEquals("app:s1", s1.get(30, TimeUnit.SECONDS).body());
    assertEquals("app:w1", w1in.get(30, TimeUnit.SECONDS).body());
    assertEquals("app:w2", w2in.get(30, TimeUnit.SECONDS).body());
    await("every slot back", BOUND_MILLIS, unchecked(() -> sum("/inflight") == 0));
  }
}
