package dev.room;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;

/**
 * Reads and writes the room's cookies; the header is written by hand to control SameSite. Their
 * Path is the room's cookie path once set, else the request's context path (as {@code JSESSIONID}
 * does), so applications side by side on one host keep their own tickets.
 */
final class Cookies {
  static final String TICKET = "room_ticket";
  static final String PROBE = "room_probe";
  static final String PASS = "room_pass";
  static final String SESSION = "room_session";

  private Cookies() {}

  /** The room's name for a cookie: the base name, suffixed with the room's name if it has one. */
  static String name(WaitingRoom room, String base) {
    String suffix = room.web().cookieSuffix;
    return suffix.isEmpty() ? base : base + suffix;
  }

  /** The value of the room's cookie {@code base}, or null. */
  static String read(HttpServletRequest req, WaitingRoom room, String base) {
    return read(req, name(room, base));
  }

  /**
   * Strips one pair of surrounding quotes: some clients send RFC 2965 style {@code name="value"},
   * and some containers (Tomcat) keep the quotes in the value.
   */
  static String unquote(String v) {
    if (v != null && v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }

  /** Sets {@code room_session} to a grant valid for {@code maxAge} seconds. */
  static void sendGrant(
      HttpServletRequest req,
      HttpServletResponse res,
      WaitingRoom room,
      String grant,
      long maxAge) {
    res.addHeader("Set-Cookie", header(req, room, SESSION, grant, Math.max(1, maxAge), true));
  }

  /** Tells the browser to drop the room's cookie {@code base}. */
  static void clear(
      HttpServletRequest req, HttpServletResponse res, WaitingRoom room, String base) {
    res.addHeader("Set-Cookie", header(req, room, base, "", 0, true));
  }

  /** The value of cookie {@code name}, or null. */
  static String read(HttpServletRequest req, String name) {
    Cookie[] cookies = req.getCookies();
    if (cookies == null) {
      return null;
    }
    for (Cookie c : cookies) {
      if (name.equals(c.getName())) {
        return unquote(c.getValue());
      }
    }
    return null;
  }

  /** Sets {@code room_ticket} (HttpOnly) and {@code room_probe} (script-readable). */
  static void sendTicket(
      HttpServletRequest req, HttpServletResponse res, WaitingRoom room, String token) {
    long maxAge = room.tokenTtl().toSeconds();
    res.addHeader("Set-Cookie", header(req, room, TICKET, token, maxAge, true));
    res.addHeader("Set-Cookie", header(req, room, PROBE, "1", maxAge, false));
  }

  /** Sets {@code room_pass}. */
  static void sendPass(
      HttpServletRequest req, HttpServletResponse res, WaitingRoom room, String passToken) {
    Duration d = room.passDuration();
    res.addHeader("Set-Cookie", header(req, room, PASS, passToken, d.toSeconds(), true));
  }

  static String header(
      HttpServletRequest req,
      WaitingRoom room,
      String name,
      String value,
      long maxAge,
      boolean httpOnly) {
    WaitingRoom.Web web = room.web();
    StringBuilder b = new StringBuilder(128);
    b.append(name(room, name)).append('=').append(value);
    b.append("; Max-Age=").append(maxAge);
    b.append("; Path=").append(path(req, web.cookiePath));
    if (!web.cookieDomain.isEmpty()) {
      b.append("; Domain=").append(web.cookieDomain);
    }
    if (web.secureCookie) {
      b.append("; Secure");
    }
    if (httpOnly) {
      b.append("; HttpOnly");
    }
    b.append("; SameSite=Lax");
    return b.toString();
  }

  /**
   * The cookie path set, else the application's context path ({@code ""} at the root is {@code /}).
   * The context's own path, not the request's: a request's is taken from the URI as sent, so a link
   * to {@code /app;Domain=…/} would write attributes into the cookie.
   */
  static String path(HttpServletRequest req, String set) {
    if (set != null) {
      return set;
    }
    String context = req.getServletContext().getContextPath();
    return context == null || context.isEmpty() ? "/" : context;
  }
}
