package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Browser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SESSIONS across three app instances in three JVMs ({@link FleetNode}, each an embedded Jetty) on
 * one real redis-server, a browser sending every request to the next instance round robin: one
 * session for the visitor, counted alike by every instance, and a revocation and an {@code
 * endSession} on one instance honoured by the others. The instances run on real time, so "within
 * one poll interval" is waited for (bounded); {@link SessionFleetTest} pins the interval itself on
 * a fake clock. The instances are stopped by PID.
 */
class ThreeJvmSessionFleetTest {
  private static final int CAPACITY = 2;
  private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(15);

  private record Node(Process process, int app, int admin) {}

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Process> started = new ArrayList<>();
  private final List<Node> nodes = new ArrayList<>();
  private RedisServer redis;
  private int next;

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
    String room = "jvm-fleet-" + UUID.randomUUID();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int n = 0; n < 3; n++) {
      Process p =
          new ProcessBuilder(
                  java,
                  "-cp",
                  System.getProperty("java.class.path"),
                  FleetNode.class.getName(),
                  redis.uri(),
                  room,
                  Integer.toString(CAPACITY),
                  "jvm-" + n)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      started.add(p); // the three JVMs start side by side
    }
    for (Process p : started) {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String ready = CompletableFuture.supplyAsync(() -> readyLine(out)).get(90, TimeUnit.SECONDS);
      String[] f = ready.split(" ");
      nodes.add(new Node(p, Integer.parseInt(f[1]), Integer.parseInt(f[2])));
    }
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

  @AfterEach
  void stop() throws Exception {
    for (Process p : started) {
      ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    for (Process p : started) {
      p.waitFor(20, TimeUnit.SECONDS);
    }
    redis.close();
  }

  private String get(Browser b, String path) throws Exception {
    Node n = nodes.get(next++ % nodes.size());
    return b.get("http://127.0.0.1:" + n.app() + path).body();
  }

  private String admin(Node n, String path) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.admin() + path)).build();
    return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
  }

  private void everyInstanceCounts(int sessions) throws Exception {
    for (Node n : nodes) {
      assertEquals(Integer.toString(sessions), admin(n, "/sessions"), "pid " + n.process().pid());
    }
  }

  /** Every instance refuses the session, within the bound (a poll interval, waited for). */
  private void refusedEverywhere(Browser b, String id, String grant) throws Exception {
    long deadline = System.nanoTime() + BOUND_NANOS;
    int refused = 0;
    while (refused < nodes.size()) {
      if (get(b, "/after").equals("shop:" + id)) {
        refused = 0;
        assertTrue(System.nanoTime() < deadline, "still honoured after the bound");
        Thread.onSpinWait();
      } else {
        refused++;
      }
      b.clearCookies(); // each instance judges the old grant afresh, not a new session's
      b.setCookie("http://127.0.0.1/", "room_session", grant);
    }
  }

  @Test
  void oneSessionAcrossThreeJvmsAndItsEndingHonouredByAll() throws Exception {
    Browser v = new Browser();
    String first = get(v, "/");
    assertTrue(first.startsWith("shop:") && first.length() == 37, first);
    String id = first.substring(5);
    for (int i = 0; i < 9; i++) {
      assertEquals(first, get(v, "/item/" + i), "request " + i + ": one session on every JVM");
    }
    everyInstanceCounts(1);

    Browser w = new Browser();
    String other = get(w, "/");
    assertTrue(other.startsWith("shop:") && !other.equals(first), other);
    everyInstanceCounts(2);
    assertFalse(get(new Browser(), "/").startsWith("shop:"), "full: a third visitor waits");

    String grant = v.cookie("room_session");
    get(v, "/ban"); // revoked on whichever instance is next
    refusedEverywhere(v, id, grant);
    everyInstanceCounts(1);

    String wid = other.substring(5);
    assertEquals("true", admin(nodes.get(2), "/end?" + wid));
    assertEquals("false", admin(nodes.get(0), "/end?" + wid), "ended already, fleet-wide");
    everyInstanceCounts(0);
    refusedEverywhere(w, wid, w.cookie("room_session"));
  }
}
