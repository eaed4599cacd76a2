package dev.room;

import dev.room.Admission.Queued;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Outcome;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;

/** The gate's answers that are not the application: the room's pages, or their status JSON. */
final class Responses {
  /** A newcomer with no place: what a closed sale's JSON answer describes. */
  private static final Queued NEWCOMER = new Queued("", Outcome.of(Outcome.WAITING, 0, 0), false);

  private Responses() {}

  /** A visitor in line: its ticket cookie and the waiting page (503 while closed). */
  static void waiting(
      WaitingRoom r, HttpServletRequest req, HttpServletResponse res, Queued q, String statusPath)
      throws IOException {
    Cookies.sendTicket(req, res, r, q.token());
    res.setHeader("Cache-Control", "no-store");
    boolean closed = r.mode() == RoomMode.CLOSED;
    if (prefersJson(req)) {
      if (!closed) {
        res.setHeader("Retry-After", "3");
      }
      StatusEndpoint.write(res, 503, StatusEndpoint.body(r, req, q));
      return;
    }
    String statusUrl = req.getServletContext().getContextPath() + statusPath;
    html(res, closed ? 503 : 200, r.web().page.render(r, req, q, statusUrl));
  }

  /** A closed sale: nobody new is queued, and a new arrival is told so, with no ticket. */
  static void closed(WaitingRoom r, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    res.setHeader("Cache-Control", "no-store");
    if (prefersJson(req)) {
      StatusEndpoint.write(res, 503, StatusEndpoint.body(r, req, NEWCOMER));
      return;
    }
    html(res, 503, Pages.closed(r.announcement()));
  }

  /**
   * The line's storage (a shared line's Redis) cannot be reached: nobody is let in, and the client
   * keeps its ticket cookie, so its place is kept. The page polls on and shows it is reconnecting.
   */
  static void lineUnavailable(
      WaitingRoom r,
      HttpServletRequest req,
      HttpServletResponse res,
      boolean status,
      String statusPath,
      LineUnavailableException e)
      throws IOException {
    if (res.isCommitted()) {
      throw e;
    }
    res.resetBuffer();
    res.setHeader("Retry-After", "5");
    res.setHeader("Cache-Control", "no-store");
    if (status || prefersJson(req)) {
      StatusEndpoint.write(res, 503, "{\"ready\":false,\"reconnecting\":true}");
      return;
    }
    html(
        res,
        503,
        Pages.unavailable(
            r.linePersisted(), req.getServletContext().getContextPath() + statusPath));
  }

  /** The line is at its maximum depth. */
  static void queueFull(WaitingRoom r, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    res.setHeader("Retry-After", "30");
    res.setHeader("Cache-Control", "no-store");
    int status = r.queueFullStatus();
    if (prefersJson(req)) {
      StatusEndpoint.write(res, status, "{\"ready\":false,\"queue_full\":true}");
      return;
    }
    html(res, status, Pages.lineFull());
  }

  /**
   * A waiting client reloaded within the poll interval: a reload is a poll in disguise, so it is
   * answered like a too-fast poll (429, {@code Retry-After}), with a few hundred bytes that come
   * back to the page by themselves rather than the page and its cookies. Its place is untouched.
   */
  static void tooFast(WaitingRoom r, HttpServletRequest req, HttpServletResponse res, Queued q)
      throws IOException {
    res.setHeader("Retry-After", "1");
    res.setHeader("Cache-Control", "no-store");
    if (prefersJson(req)) {
      StatusEndpoint.write(res, 429, StatusEndpoint.body(r, req, q));
      return;
    }
    html(res, 429, Pages.tooFast());
  }

  private static void html(HttpServletResponse res, int status, byte[] page) throws IOException {
    StatusEndpoint.pagePolicy(res);
    res.setStatus(status);
    res.setContentType("text/html;charset=utf-8");
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  /** Whether the Accept header ranks application/json above text/html. */
  static boolean prefersJson(HttpServletRequest req) {
    String accept = req.getHeader("Accept");
    if (accept == null || !accept.contains("json")) {
      return false;
    }
    double json = -1;
    double html = -1;
    for (String part : accept.split(",")) {
      String[] f = part.split(";");
      String type = f[0].strip().toLowerCase(Locale.ROOT);
      double q = 1;
      for (int i = 1; i < f.length; i++) {
        String p = f[i].strip();
        if (p.startsWith("q=")) {
          try {
            q = Double.parseDouble(p.substring(2));
          } catch (NumberFormatException e) {
            q = 0;
          }
        }
      }
      if (type.equals("application/json") || type.endsWith("+json")) {
        json = Math.max(json, q);
      } else if (type.equals("text/html")) {
        html = Math.max(html, q);
      }
    }
    return json > 0 && json > html;
  }
}
