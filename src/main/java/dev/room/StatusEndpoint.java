package dev.room;

import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET <status-path>}: where a waiting client stands, as a small JSON object.
 *
 * <p>One line operation per poll. The body is written by hand: it is a handful of fields and this
 * is the busiest endpoint in a sale.
 */
final class StatusEndpoint {
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
    long now = room.clock().millis();
    Sessions sessions = room.sessions();
    if (sessions.enabled()) {
      String grant = Cookies.read(req, room, Cookies.SESSION);
      if (grant != null && !grant.isEmpty()) {
        Sessions.Admitted a = sessions.check(grant, now);
        if (a != null) {
          long remaining = Math.max(0, (a.session().expiresAt() - now) / 1000);
          write(
              res,
              200,
              "{\"ready\":true,\"state\":\"active\",\"session_remaining_seconds\":"
                  + remaining
                  + "}");
          return;
        }
      }
    }
    String ticket = Cookies.read(req, room, Cookies.TICKET);
    if (ticket == null || ticket.isEmpty()) {
      write(res, 200, "{\"ready\":false,\"cookies_required\":true}");
      return;
    }
    if (!Tokens.valid(ticket)) {
      write(res, 200, "{\"ready\":true}");
      return;
    }
    long o = room.poll(Tokens.hi(ticket), Tokens.lo(ticket), ticket, now);
    if (Outcome.has(o, Outcome.REFRESH_COOKIES)) {
      Cookies.sendTicket(res, room, ticket);
    }
    int status = 200;
    if (Outcome.has(o, Outcome.RATE_LIMITED)) {
      status = 429;
      res.setHeader("Retry-After", "1");
    }
    write(res, status, body(room, req, o));
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
      Cookies.clear(res, room, Cookies.SESSION);
    }
    res.setHeader("Cache-Control", "no-store");
    res.setStatus(HttpServletResponse.SC_NO_CONTENT);
  }

  /** The status JSON for an outcome. */
  static String body(WaitingRoom room, HttpServletRequest req, long outcome) {
    int kind = Outcome.kind(outcome);
    if (kind == Outcome.UNKNOWN || kind == Outcome.ADMITTED) {
      return "{\"ready\":true}";
    }
    boolean sessions = room.sessions().enabled();
    if (kind == Outcome.READY) {
      return sessions
          ? "{\"ready\":true,\"state\":\"offered\",\"position\":0}"
          : "{\"ready\":true,\"position\":0}";
    }
    long position = Outcome.position(outcome);
    StringBuilder b = new StringBuilder(96);
    b.append(
            sessions
                ? "{\"ready\":false,\"state\":\"waiting\",\"position\":"
                : "{\"ready\":false,\"position\":")
        .append(position);
    String pass = Cookies.read(req, room, Cookies.PASS);
    if (pass != null && room.hasValidPass(pass)) {
      b.append(",\"has_pass\":true");
    } else {
      RateFunction rate = room.web().rateFunction;
      if (rate != null) {
        BigDecimal perPosition = rate.ratePerPosition(room.queueDepth());
        if (perPosition != null) {
          BigDecimal cost = perPosition.multiply(BigDecimal.valueOf(Math.max(0, position - 1)));
          b.append(",\"skip_cost\":").append(cost.toPlainString());
          b.append(",\"rate_per_pos\":").append(perPosition.toPlainString());
        }
      }
    }
    return b.append('}').toString();
  }

  static void write(HttpServletResponse res, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    res.setStatus(status);
    res.setContentType("application/json");
    res.setHeader("Cache-Control", "no-store");
    res.setContentLength(bytes.length);
    res.getOutputStream().write(bytes);
  }
}
