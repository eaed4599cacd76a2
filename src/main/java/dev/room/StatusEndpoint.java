package dev.room;

import dev.room.Admission.Queued;
import dev.room.Admission.Verdict;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Currency;

/**
 * {@code GET <status-path>}: where a waiting client stands, as a small JSON object.
 *
 * <p>One line operation per poll. The body is written by hand: it is a handful of fields and this
 * is the busiest endpoint in a sale. A waiting client's body carries, in this order: {@code ready},
 * {@code state}, {@code position} (not while closed or before a pre-sale draw) and the
 * skip-the-line fields ({@code skip_cost}, {@code currency} when the room has one, {@code
 * rate_per_pos}), {@code message}, {@code opens_in_seconds}, {@code wait_low_seconds} and {@code
 * wait_high_seconds} (only while admission runs and its rate is known) and {@code poll_after_ms}. A
 * client whose place moved to another device (its identity joined again there) gets {@code ready},
 * {@code state} ({@code "moved"}) and {@code message}, and its page stops polling.
 */
final class StatusEndpoint {
  static final String PASSTHROUGH = "{\"ready\":true,\"state\":\"passthrough\"}";

  /** The place went to another device where the visitor's identity joined again. */
  static final String MOVED = moved();

  private StatusEndpoint() {}

  static void handle(WaitingRoom room, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    String method = req.getMethod();
    if ("OPTIONS".equals(method)) {
      res.setHeader("Allow", "GET, HEAD, OPTIONS");
      res.setStatus(HttpServletResponse.SC_NO_CONTENT);
      return;
    }
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      res.setHeader("Allow", "GET, HEAD, OPTIONS");
      res.sendError(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
      return;
    }
    Admission a = Gatekeeper.status(room, req, ServletVisitor.INSTANCE);
    // origin (issue 16): the head of the line may be held until it is offered a slot
    HeadOfLine head = room.headOfLine();
    if (a instanceof Queued q && q.waiting()) {
      head.observe(q.position(), room.clock().millis());
    }
    if (a instanceof Queued q && head.hold(room, req, res, q)) {
      head.polled(room); // an offer made between this poll and its hold woke nobody
      return;
    }
    answer(room, req, res, a, false);
    head.polled(room);
  }

  /**
   * Writes the answer for {@code a}; {@code held} for a held request: it never polled too soon (no
   * 429), and having waited it may poll again at once ({@code poll_after_ms} 0).
   */
  static void answer(
      WaitingRoom room, HttpServletRequest req, HttpServletResponse res, Admission a, boolean held)
      throws IOException {
    if (a instanceof Sessions.Admitted s) {
      long remaining = Math.max(0, (s.session().expiresAt() - room.clock().millis()) / 1000);
      write(
          res,
          200,
          "{\"ready\":true,\"state\":\"active\",\"session_remaining_seconds\":" + remaining + "}");
    } else if (a == Verdict.PASS) {
      write(res, 200, PASSTHROUGH);
    } else if (a == Verdict.NO_COOKIES) {
      write(res, 200, "{\"ready\":false,\"cookies_required\":true}");
    } else if (a instanceof Queued q) {
      if (q.refreshCookies()) {
        Cookies.sendTicket(req, res, room, q.token());
      }
      boolean tooSoon = !held && q.reload();
      if (tooSoon) {
        res.setHeader("Retry-After", "1");
      }
      write(res, tooSoon ? 429 : 200, body(room, req, q, held));
    } else {
      write(res, 200, "{\"ready\":true}"); // UNTRACKED
    }
  }

  /** {@code POST <status-path>/leave}: ends the caller's session. Idempotent; always 204. */
  static void leave(WaitingRoom room, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    if (!"POST".equals(req.getMethod())) {
      res.setHeader("Allow", "POST");
      res.sendError(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
      return;
    }
    String grant = Cookies.read(req, room, Cookies.SESSION);
    if (grant != null && !grant.isEmpty()) {
      Sessions.Admitted a = room.sessions().check(grant, room.clock().millis());
      if (a != null) {
        room.sessions().end(a.session(), "left");
      }
      Cookies.clear(req, res, room, Cookies.SESSION);
    }
    res.setHeader("Cache-Control", "no-store");
    res.setStatus(HttpServletResponse.SC_NO_CONTENT);
  }

  /** The status JSON for an outcome. */
  static String body(WaitingRoom room, HttpServletRequest req, Queued q) {
    return body(room, req, q, false);
  }

  /** The status JSON for an outcome; {@code held}: answers a held request (see {@link #answer}). */
  static String body(WaitingRoom room, HttpServletRequest req, Queued q, boolean held) {
    if (q.offered()) {
      return room.sessions().enabled()
          ? "{\"ready\":true,\"state\":\"offered\",\"position\":0}"
          : "{\"ready\":true,\"position\":0}";
    }
    if (q.moved()) {
      return MOVED;
    }
    if (!q.waiting()) {
      return room.mode() == RoomMode.PASSTHROUGH ? PASSTHROUGH : "{\"ready\":true}";
    }
    long position = q.position();
    Standing s = room.sale().standing(position, room.clock().millis());
    StringBuilder b = new StringBuilder(160);
    b.append("{\"ready\":false,\"state\":\"").append(s.state()).append('"');
    if (s.showPosition()) {
      b.append(",\"position\":").append(position);
      String pass = Cookies.read(req, room, Cookies.PASS);
      if (pass != null && room.hasValidPass(pass)) {
        b.append(",\"has_pass\":true");
      } else {
        BigDecimal perPosition = ratePerPosition(room);
        if (perPosition != null) {
          BigDecimal cost = perPosition.multiply(BigDecimal.valueOf(Math.max(0, position - 1)));
          b.append(",\"skip_cost\":").append(cost.toPlainString());
          Currency currency = room.web().currency;
          if (currency != null) {
            b.append(",\"currency\":\"").append(currency.getCurrencyCode()).append('"');
          }
          b.append(",\"rate_per_pos\":").append(perPosition.toPlainString());
        }
      }
    }
    if (!s.message().isEmpty()) {
      b.append(",\"message\":");
      quote(s.message(), b);
    }
    if (s.opensInSeconds() >= 0) {
      b.append(",\"opens_in_seconds\":").append(s.opensInSeconds());
    }
    if (s.waitLow() >= 0) {
      b.append(",\"wait_low_seconds\":").append(s.waitLow());
      b.append(",\"wait_high_seconds\":").append(s.waitHigh());
    }
    b.append(",\"poll_after_ms\":")
        .append(held ? 0 : frontPace(room, s.pollAfterMillis(), position));
    return b.append('}').toString();
  }

  // origin (issue 16): the front polls every second, the rest soon enough to reach it in time
  private static long frontPace(WaitingRoom room, long told, long position) {
    long now = room.clock().millis();
    double rate = room.sale().measuredRate(now);
    long fromFront = room.headOfLine().fromFront(position, now);
    return HeadOfLine.pollAfter(told, fromFront, HeadOfLine.band(room.capacity(), rate), rate);
  }

  private static String moved() {
    StringBuilder b = new StringBuilder("{\"ready\":false,\"state\":\"moved\",\"message\":");
    quote(Standing.MOVED_MESSAGE, b);
    return b.append('}').toString();
  }

  /** The rate function's price of one place now; null when off, or when it threw. */
  private static BigDecimal ratePerPosition(WaitingRoom room) {
    RateFunction rate = room.web().rateFunction;
    if (rate == null) {
      return null;
    }
    try {
      return rate.ratePerPosition(room.queueDepth());
    } catch (Throwable e) { // user code: anything it throws is caught
      room.userCode().failed(room.displayName(), "rate function", e);
      return null;
    }
  }

  /**
   * What the room's own pages and JSON may not be: sniffed as another type, or framed by another
   * site (clickjacking the skip-the-line button). The CSP carries only {@code frame-ancestors}, so
   * a custom page's scripts and styles are left alone.
   */
  static void pagePolicy(HttpServletResponse res) {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Security-Policy", "frame-ancestors 'self'");
    res.setHeader("X-Frame-Options", "SAMEORIGIN");
  }

  /** Appends {@code s} as a JSON string, with {@code <}, {@code >} and {@code &} escaped too. */
  static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  static void write(HttpServletResponse res, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    res.setStatus(status);
    res.setContentType("application/json");
    res.setHeader("Cache-Control", "no-store");
    pagePolicy(res);
    res.setContentLength(bytes.length);
    res.getOutputStream().write(bytes);
  }
}
