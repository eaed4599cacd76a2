package dev.room.redis;

import dev.room.AdmissionMode;
import dev.room.Event;
import dev.room.JettyHarness;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One app instance in its own JVM, for the fleet tests that run several ({@link
 * ThreeJvmFleetTest}): a plain admin server (no room in front) through which the test opens rooms
 * on this instance and reads and drives them. Each room opened is a {@link WaitingRoom} on its own
 * {@link RedisLine} (real clock, background heartbeat, the lease TTL the test asks for) behind an
 * embedded Jetty, in front of a {@link Shop}. Prints {@code READY <admin port>} once serving; runs
 * until killed or until its standard input closes (the test's process ended).
 *
 * <p>Argument: the instance name its leases carry.
 *
 * <p>Admin calls ({@code GET}, answer in plain text): {@code /open?room=&redis=&capacity=&mode=
 * requests|sessions&failOpen=&lease=<seconds>} (answers the room's app port), {@code /close?room=},
 * and per room ({@code room=} on each): {@code /inflight}, {@code /depth}, {@code /sessions},
 * {@code /offers}, {@code /end?id=}, {@code /mode[?set=]}, {@code /rate[?set=]}, {@code
 * /announce[?set=]}, {@code /events[?type=]} (the events fired here, {@code NAME} or {@code
 * NAME:detail}, of one type or all), {@code /running} (requests parked in the shop), {@code
 * /admitted} ({@code who@millis} for each request the shop ran, in order), {@code /parked?who=},
 * {@code /release?who=}, {@code /connected}, {@code /losses} and {@code /ghosts} (the line's
 * recovery counters). A read of mode, rate or announcement with {@code sync} first runs a reaper
 * pass, which adopts the fleet's controls as a request would.
 */
public final class FleetNode {
  private final String name;
  private final Map<String, Hosted> rooms = new ConcurrentHashMap<>();

  private FleetNode(String name) {
    this.name = name;
  }

  /**
   * The application behind a room: echoes the session id in SESSIONS mode ({@code /ban} revokes
   * it), otherwise records who ran and, with {@code park=1}, holds the request (and so its slot)
   * until the test releases it.
   */
  static final class Shop extends HttpServlet {
    private static final long serialVersionUID = 1L;

    final transient List<String> admitted = new CopyOnWriteArrayList<>();
    final transient Map<String, CountDownLatch> parked = new ConcurrentHashMap<>();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      Object session = req.getAttribute("dev.room.sessionId");
      if (session != null) {
        if (req.getRequestURI().equals("/ban")) {
          res.addHeader("Room-Command", "revoke");
        }
        res.getWriter().write("shop:" + session);
        return;
      }
      String who = String.valueOf(req.getParameter("who"));
      admitted.add(who + "@" + System.currentTimeMillis());
      if ("1".equals(req.getParameter("park"))) {
        CountDownLatch done = new CountDownLatch(1);
        parked.put(who, done);
        try {
          if (!done.await(120, TimeUnit.SECONDS)) {
            res.sendError(504, "never released");
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } finally {
          parked.remove(who);
        }
      }
      res.setContentType("text/plain");
      res.getWriter().write("app:" + who);
    }
  }

  /** A room this instance serves. */
  private record Hosted(
      RedisLine line, WaitingRoom room, JettyHarness jetty, Shop shop, List<String> events) {
    void close() {
      for (CountDownLatch l : shop.parked.values()) {
        l.countDown();
      }
      jetty.close();
      room.close();
    }
  }

  public static void main(String[] args) throws Exception {
    FleetNode node = new FleetNode(args[0]);
    JettyHarness admin = new JettyHarness();
    admin.servlet(
        new HttpServlet() {
          private static final long serialVersionUID = 1L;

          @Override
          protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
            String body;
            try {
              body = node.admin(req.getRequestURI(), query(req.getQueryString()));
            } catch (Exception e) { // the test reads the failure rather than a bare 500
              res.setStatus(500);
              body = "error: " + e;
            }
            res.setContentType("text/plain;charset=utf-8");
            res.getWriter().write(body);
          }
        },
        "/*");
    admin.start();
    System.out.println("READY " + admin.port());
    System.out.flush();
    while (System.in.read() >= 0) {
      // the test talks to us over HTTP; end of input means it is gone
    }
    node.rooms.values().forEach(Hosted::close);
    admin.close();
  }

  private String admin(String path, Map<String, String> q) throws Exception {
    if (path.equals("/open")) {
      return Integer.toString(open(q));
    }
    String id = q.get("room");
    Hosted h = rooms.get(id);
    if (h == null) {
      throw new IllegalArgumentException("no room " + id + " on " + name);
    }
    WaitingRoom room = h.room();
    String set = q.get("set");
    if (set == null && q.containsKey("sync")) {
      room.evictExpired(); // a reaper pass reads the fleet's controls, as a request would
    }
    return switch (path) {
      case "/close" -> {
        rooms.remove(id);
        h.close();
        yield "closed";
      }
      case "/inflight" -> Integer.toString(room.inFlight());
      case "/depth" -> Long.toString(room.liveQueueDepth());
      case "/sessions" -> Integer.toString(room.activeSessions());
      case "/offers" -> Integer.toString(room.outstandingOffers());
      case "/end" -> Boolean.toString(room.endSession(q.get("id")));
      case "/mode" -> {
        if (set != null) {
          room.setMode(RoomMode.valueOf(set));
        }
        yield room.mode().name();
      }
      case "/rate" -> {
        if (set != null) {
          room.setAdmissionRate(Double.parseDouble(set));
        }
        yield Double.toString(room.admissionRate());
      }
      case "/announce" -> {
        if (set != null) {
          room.setAnnouncement(set);
        }
        yield room.announcement();
      }
      case "/events" -> {
        String type = q.get("type");
        yield String.join(
            ",", h.events().stream().filter(e -> type == null || e.startsWith(type)).toList());
      }
      case "/running" -> Integer.toString(h.shop().parked.size());
      case "/admitted" -> String.join(",", h.shop().admitted);
      case "/parked" -> Boolean.toString(h.shop().parked.containsKey(q.get("who")));
      case "/release" -> {
        String who = q.get("who");
        CountDownLatch l = h.shop().parked.get(who);
        if (l == null) {
          yield "false";
        }
        l.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (h.shop().parked.get(who) == l && System.nanoTime() < deadline) {
          Thread.onSpinWait(); // answered once the request is on its way out of the shop
        }
        yield "true";
      }
      case "/connected" -> Boolean.toString(h.line().connected());
      case "/losses" -> Long.toString(h.line().stateLosses());
      case "/ghosts" -> Long.toString(h.line().ghostsRetired());
      default -> throw new IllegalArgumentException("no admin call " + path);
    };
  }

  private int open(Map<String, String> q) throws Exception {
    String id = q.get("room");
    RedisLine line =
        RedisLine.builder(q.get("redis"), id)
            .instanceName(name)
            .leaseTtl(Duration.ofSeconds(Long.parseLong(q.getOrDefault("lease", "15"))))
            .failOpen(Boolean.parseBoolean(q.get("failOpen")))
            .build();
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(Integer.parseInt(q.get("capacity")))
            .line(line)
            .admissionMode(
                "sessions".equals(q.get("mode")) ? AdmissionMode.SESSIONS : AdmissionMode.REQUESTS)
            .build();
    List<String> events = new CopyOnWriteArrayList<>();
    for (Event e : Event.values()) {
      room.on(e, s -> events.add(s.detail().isEmpty() ? e.name() : e.name() + ":" + s.detail()));
    }
    Shop shop = new Shop();
    JettyHarness jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(shop, "/*");
    jetty.start();
    rooms.put(id, new Hosted(line, room, jetty, shop, events));
    return jetty.port();
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        String k = eq < 0 ? pair : pair.substring(0, eq);
        String v = eq < 0 ? "" : pair.substring(eq + 1);
        q.put(k, URLDecoder.decode(v, StandardCharsets.UTF_8));
      }
    }
    return q;
  }
}
