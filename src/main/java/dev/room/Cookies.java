package dev.room;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;

/** Reads and writes the room's cookies; the header is written by hand to control SameSite. */
final class Cookies {
  static final String TICKET = "room_ticket";
  static final String PROBE = "room_probe";
  static final String PASS = "room_pass";

  private Cookies() {}

  /** The value of cookie {@code name}, or null. */
  static String read(HttpServletRequest req, String name) {
    Cookie[] cookies = req.getCookies();
    if (cookies == null) {
      return null;
    }
    for (Cookie c : cookies) {
      if (name.equals(c.getName())) {
        return c.getValue();
      }
    }
    return null;
  }

  /**
   * Sets {@code room_ticket} (HttpOnly) and {@code room_probe} (script-readable), suffixed with the
   * room's name if it has one.
   */
  static void sendTicket(HttpServletResponse res, WaitingRoom room, String token) {
    long maxAge = room.tokenTtl().toSeconds();
    WaitingRoom.Web web = room.web();
    res.addHeader("Set-Cookie", header(room, web.ticketCookie, token, maxAge, true));
    res.addHeader("Set-Cookie", header(room, web.probeCookie, "1", maxAge, false));
  }

  /** Sets {@code room_pass} (suffixed with the room's name if it has one). */
  static void sendPass(HttpServletResponse res, WaitingRoom room, String passToken) {
    Duration d = room.passDuration();
    res.addHeader(
        "Set-Cookie", header(room, room.web().passCookie, passToken, d.toSeconds(), true));
  }

  static String header(WaitingRoom room, String name, String value, long maxAge, boolean httpOnly) {
    WaitingRoom.Web web = room.web();
    StringBuilder b = new StringBuilder(128);
    b.append(name).append('=').append(value);
    b.append("; Max-Age=").append(maxAge);
    b.append("; Path=").append(web.cookiePath);
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
}
