package dev.room.sample;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.CapacityController;
import dev.room.Event;
import dev.room.RoomMode;
import dev.room.TicketInfo;
import dev.room.TokenNotFoundException;
import dev.room.WaitingRoom;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator's dashboard ({@code GET /admin}) and the JSON endpoints behind it.
 *
 * <p>Every endpoint needs the admin token (see {@link AdminAuth}). Tokens of waiting clients never
 * leave the server whole: the line lists each client under an opaque {@code id} (an HMAC of its
 * token under a per-process key) and a six-character {@code ticket} prefix for eyeballing; the
 * actions take the {@code id}.
 *
 * <pre>
 * GET  /admin/api/state?limit=20   the room, the chart's history and the first clients in line
 * POST /admin/api/remove           {"id": "…"}                → {"removed": true}
 * POST /admin/api/front            {"id": "…"}                → {"moved": true}
 * POST /admin/api/rank             {"id": "…", "rank": 2}     → {"moved": true}
 * POST /admin/api/capacity         {"capacity": 50}           → {"capacity": 50}
 * POST /admin/api/mode             {"mode": "paused"}         → {"mode": "PAUSED"}
 *                                  (open, queue-all, paused, passthrough, closed)
 * POST /admin/api/announcement     {"text": "Back at 10:05"}  → {"announcement": "…"} ("" clears)
 * POST /admin/api/admission-rate   {"perSecond": 2.5}         → {"admissionRate": 2.5} (0 = off)
 * POST /admin/api/presale          {"inSeconds": 600} or {"opensAt": "2030-01-01T10:00:00Z"}
 *                                  or {"cancel": true}        → the "presale" of the state
 * POST /admin/api/controller       {"adaptive": true, "min": 1, "max": 40} or {"adaptive": false}
 *                                                             → the "controller" of the state
 * </pre>
 *
 * <p>The state's {@code presale} carries the opening, the seed's SHA-256 (publish it before the
 * opening) and, once the draw took place, the seed itself, so anyone can check the order.
 *
 * <p>POSTs must be {@code application/json}, which a cross-site form cannot send: together with the
 * SameSite=Strict login cookie that keeps other sites from acting on an operator's behalf.
 */
final class AdminServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final int MAX_LIMIT = 200;
  private static final int KNOWN_IDS = 10_000;
  private static final String CSP =
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';"
          + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  private final transient WaitingRoom room;
  private final transient RoomHistory history;
  private final transient InstantSource clock;
  private final transient AdminAuth auth;
  private final transient ObjectMapper json = new ObjectMapper();
  private final transient byte[] dashboard = resource("admin.html");

  /** Opaque id → token for the clients the dashboard has listed: bounded, oldest dropped. */
  private final transient Map<String, String> ids =
      new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
          return size() > KNOWN_IDS;
        }
      };

  /** The adaptive controller's bounds while the dashboard has one on; null when off. */
  private volatile int[] controller;

  AdminServlet(WaitingRoom room, RoomHistory history, AdminAuth auth) {
    this(room, history, auth, InstantSource.system());
  }

  AdminServlet(WaitingRoom room, RoomHistory history, AdminAuth auth, InstantSource clock) {
    this.clock = clock;
    this.room = room;
    this.history = history;
    this.auth = auth;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (path.equals("/")) {
      String token = req.getParameter("token");
      if (token != null) {
        logIn(req, res, token);
      } else if (auth.authorized(req)) {
        html(res, 200, dashboard);
      } else {
        html(res, 401, loginPage(""));
      }
      return;
    }
    if (!auth.authorized(req)) {
      unauthorized(res);
      return;
    }
    if (path.equals("/api/state")) {
      write(res, 200, state(limit(req.getParameter("limit"))));
    } else {
      write(res, 404, Map.of("error", "no such endpoint"));
    }
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
    String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
    res.setHeader("Cache-Control", "no-store");
    if (path.equals("/login")) {
      logIn(req, res, req.getParameter("token"));
      return;
    }
    if (path.equals("/logout")) {
      res.addHeader("Set-Cookie", AdminAuth.logoutCookie());
      res.sendRedirect("/admin");
      return;
    }
    if (!auth.authorized(req)) {
      unauthorized(res);
      return;
    }
    String type = req.getContentType();
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
      write(res, 415, Map.of("error", "send application/json"));
      return;
    }
    JsonNode body;
    try (InputStream in = req.getInputStream()) {
      body = json.readTree(in.readNBytes(64 * 1024));
    } catch (IOException e) {
      write(res, 400, Map.of("error", "malformed JSON"));
      return;
    }
    if (body == null || !body.isObject()) {
      write(res, 400, Map.of("error", "expected a JSON object"));
      return;
    }
    try {
      switch (path) {
        case "/api/capacity" -> {
          int capacity = body.path("capacity").asInt(0);
          room.setCapacity(capacity);
          write(res, 200, Map.of("capacity", room.capacity()));
        }
        case "/api/remove" -> write(res, 200, Map.of("removed", room.removeToken(token(body))));
        case "/api/front" -> {
          String token = token(body);
          long before = room.ticket(token).map(TicketInfo::position).orElse(0L);
          room.adminPromote(token, 1);
          write(res, 200, Map.of("moved", before > 1));
        }
        case "/api/rank" -> {
          JsonNode rank = body.path("rank");
          if (!rank.canConvertToInt()) {
            throw new IllegalArgumentException("rank must be a whole number");
          }
          write(res, 200, Map.of("moved", room.setTicketRank(token(body), rank.asInt())));
        }
        case "/api/mode" -> {
          room.setMode(mode(body.path("mode").asText("")));
          write(res, 200, Map.of("mode", room.mode().name()));
        }
        case "/api/announcement" -> {
          JsonNode text = body.path("text");
          if (!text.isTextual()) {
            throw new IllegalArgumentException("text must be a string (\"\" clears it)");
          }
          room.setAnnouncement(text.asText());
          write(res, 200, Map.of("announcement", room.announcement()));
        }
        case "/api/admission-rate" -> {
          JsonNode rate = body.path("perSecond");
          if (!rate.isNumber()) {
            throw new IllegalArgumentException("perSecond must be a number (0 = unlimited)");
          }
          room.setAdmissionRate(rate.asDouble());
          write(res, 200, Map.of("admissionRate", room.admissionRate()));
        }
        case "/api/presale" -> {
          room.schedulePresale(opensAt(body));
          write(res, 200, presale());
        }
        case "/api/controller" -> {
          setController(body);
          write(res, 200, controllerState());
        }
        default -> write(res, 404, Map.of("error", "no such endpoint"));
      }
    } catch (PresaleDrawn e) {
      write(res, 409, Map.of("error", e.getMessage()));
    } catch (UnknownId | TokenNotFoundException e) {
      write(res, 404, Map.of("error", "that client is no longer in line; refresh the list"));
    } catch (IllegalArgumentException e) {
      write(res, 400, Map.of("error", e.getMessage()));
    } catch (IllegalStateException e) {
      write(res, 409, Map.of("error", "that client is already being let in"));
    }
  }

  private static RoomMode mode(String name) {
    try {
      return RoomMode.valueOf(name.strip().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "mode must be one of open, queue-all, paused, passthrough, closed; was '" + name + "'",
          e);
    }
  }

  /** The opening a presale body asks for; null to cancel. */
  private Instant opensAt(JsonNode body) {
    if (room.presaleSeed().isPresent()) {
      throw new PresaleDrawn();
    }
    if (body.path("cancel").asBoolean(false)) {
      return null;
    }
    JsonNode in = body.path("inSeconds");
    JsonNode at = body.path("opensAt");
    Instant opensAt;
    if (in.canConvertToLong()) {
      opensAt = clock.instant().plusSeconds(in.asLong());
    } else if (at.isTextual()) {
      try {
        opensAt = Instant.parse(at.asText());
      } catch (java.time.format.DateTimeParseException e) {
        throw new IllegalArgumentException("opensAt must be an ISO-8601 instant", e);
      }
    } else {
      throw new IllegalArgumentException("send inSeconds, opensAt or cancel");
    }
    return opensAt;
  }

  private void setController(JsonNode body) {
    JsonNode on = body.path("adaptive");
    if (!on.isBoolean()) {
      throw new IllegalArgumentException("adaptive must be true or false");
    }
    if (!on.asBoolean()) {
      room.setCapacityController(null);
      controller = null;
      return;
    }
    int min = body.path("min").asInt(1);
    int max = body.path("max").asInt(Math.max(10, room.capacity() * 4));
    room.setCapacityController(CapacityController.adaptive(min, max)); // checks the bounds
    controller = new int[] {min, max};
  }

  private Map<String, Object> presale() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("opensAt", room.presaleOpensAt().map(Instant::toString).orElse(null));
    p.put("seedHash", room.presaleSeedHash());
    p.put("seed", room.presaleSeed().orElse(null));
    return p;
  }

  private Map<String, Object> controllerState() {
    int[] c = controller;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("adaptive", c != null);
    out.put("min", c == null ? null : c[0]);
    out.put("max", c == null ? null : c[1]);
    return out;
  }

  private void logIn(HttpServletRequest req, HttpServletResponse res, String token)
      throws IOException {
    if (!auth.tokenMatches(token)) {
      html(res, 401, loginPage("That token is not right."));
      return;
    }
    res.addHeader("Set-Cookie", auth.sessionCookie(req.isSecure()));
    res.sendRedirect("/admin"); // drops ?token= from the address bar and the history
  }

  /** The room, the history and the first {@code limit} clients in line. */
  private Map<String, Object> state(int limit) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("capacity", room.capacity());
    out.put("inFlight", room.inFlight());
    out.put("queueDepth", room.queueDepth());
    out.put("liveQueueDepth", room.liveQueueDepth());
    out.put("utilization", room.utilization());
    out.put("utilizationSmoothed", room.utilizationSmoothed());
    out.put("maxQueueDepth", room.maxQueueDepth());
    out.put("admittedPerSecond", history.admittedPerSecond());
    out.put("mode", room.mode().name());
    out.put("announcement", room.announcement());
    out.put("admissionRate", room.admissionRate());
    double measured = room.measuredAdmissionRate();
    out.put("measuredAdmissionRate", Double.isNaN(measured) ? null : measured);
    out.put("presale", presale());
    out.put("controller", controllerState());
    Map<String, Long> totals = new LinkedHashMap<>();
    for (Event e : List.of(Event.ENTER, Event.QUEUE, Event.EVICT, Event.TIMEOUT)) {
      totals.put(e.name().toLowerCase(java.util.Locale.ROOT), history.total(e));
    }
    for (Event e : List.of(Event.PROMOTE, Event.REMOVE, Event.RANK, Event.REJECT)) {
      totals.put(e.name().toLowerCase(java.util.Locale.ROOT), history.total(e));
    }
    out.put("totals", totals);

    RoomHistory.Series s = history.series();
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("intervalSeconds", 1);
    h.put("at", s.at);
    h.put("depth", s.depth);
    h.put("inFlight", s.inFlight);
    h.put("capacity", s.capacity);
    out.put("history", h);

    Instant now = clock.instant();
    List<Map<String, Object>> line = new ArrayList<>();
    for (TicketInfo t : room.queue(limit)) {
      String id = auth.opaqueId(t.token());
      synchronized (ids) {
        ids.put(id, t.token());
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", id);
      row.put("ticket", t.token().substring(0, 6));
      row.put("position", t.position());
      row.put("clientKey", t.clientKey());
      row.put("waitingSeconds", Duration.between(t.issuedAt(), now).toSeconds());
      row.put(
          "lastPollSecondsAgo",
          t.lastPoll() == null ? null : Duration.between(t.lastPoll(), now).toSeconds());
      row.put("seen", t.seen());
      row.put("hasPass", t.hasPass());
      row.put("rank", t.rank());
      line.add(row);
    }
    out.put("line", line);
    return out;
  }

  private String token(JsonNode body) {
    String id = body.path("id").asText("");
    String token;
    synchronized (ids) {
      token = ids.get(id);
    }
    if (token == null) {
      throw new UnknownId();
    }
    return token;
  }

  private static int limit(String v) {
    try {
      return v == null ? 20 : Math.max(1, Math.min(MAX_LIMIT, Integer.parseInt(v)));
    } catch (NumberFormatException e) {
      return 20;
    }
  }

  private void write(HttpServletResponse res, int status, Object body) throws IOException {
    byte[] bytes = json.writeValueAsBytes(body);
    res.setStatus(status);
    res.setContentType("application/json");
    res.setContentLength(bytes.length);
    res.getOutputStream().write(bytes);
  }

  private void unauthorized(HttpServletResponse res) throws IOException {
    res.setHeader("WWW-Authenticate", "Bearer realm=\"room-admin\"");
    write(res, 401, Map.of("error", "unauthorized"));
  }

  private static void html(HttpServletResponse res, int status, byte[] page) throws IOException {
    res.setStatus(status);
    res.setContentType("text/html;charset=utf-8");
    res.setHeader("Content-Security-Policy", CSP);
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  private static byte[] loginPage(String error) {
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            + "<title>Waiting room — operator login</title><style>body{font:16px/1.5 system-ui,"
            + "sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}input{width:100%;"
            + "padding:.5rem;font:inherit}button{margin-top:.75rem;padding:.5rem 1rem;font:inherit}"
            + ".error{color:#b00020}</style></head><body><h1>Operator login</h1>"
            + (error.isEmpty() ? "" : "<p class=\"error\" role=\"alert\">" + error + "</p>")
            + "<form method=\"post\" action=\"/admin/login\"><label>Admin token<br>"
            + "<input type=\"password\" name=\"token\" autocomplete=\"current-password\" autofocus>"
            + "</label><br><button type=\"submit\">Log in</button></form>"
            + "<p>The token is in <code>ROOM_ADMIN_TOKEN</code>, or in the file the server named"
            + " at start-up.</p></body></html>")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] resource(String name) {
    try (InputStream in = AdminServlet.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The pre-sale was drawn: it can be neither moved nor cancelled. */
  private static final class PresaleDrawn extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PresaleDrawn() {
      super("the pre-sale draw already took place", null, false, false);
    }
  }

  /** An id the dashboard never listed, or listed too long ago. */
  private static final class UnknownId extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnknownId() {
      super(null, null, false, false);
    }
  }
}
