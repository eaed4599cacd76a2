package dev.room.sample;

import dev.room.PromoteResult;
import dev.room.TicketInfo;
import dev.room.TokenNotFoundException;
import dev.room.WaitingRoom;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A fake payment page for skipping the line. It is mapped outside the room ({@code bypassPaths}) so
 * that a client waiting in line can reach it.
 *
 * <p>{@code GET /pay} quotes the price of moving to the front (read-only); {@code POST
 * /pay/confirm} "charges the card", moves the client to the front with {@link
 * WaitingRoom#promoteTokenToFront} and, when passes are on, sets the {@code room_pass} cookie from
 * the result. With a real payment provider the promotion belongs in its webhook instead, and the
 * pass goes to the client on the success page (webhooks cannot set cookies).
 */
final class PaymentServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** Where the waiting page's "Pay to skip" button points. */
  static final String PATH = "/pay";

  private static final String TICKET = "room_ticket";
  private static final String PASS = "room_pass";

  private final transient WaitingRoom room;

  PaymentServlet(WaitingRoom room) {
    this.room = room;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    String token = cookie(req, TICKET);
    Optional<TicketInfo> ticket = token == null ? Optional.empty() : room.ticket(token);
    if (ticket.isEmpty() || ticket.get().position() <= 0) {
      page(res, 200, "Nothing to skip", "<p>You are not waiting in line right now.</p>");
      return;
    }
    String pass = cookie(req, PASS);
    if (pass != null && room.hasValidPass(pass)) {
      page(res, 200, "You have a VIP pass", "<p>You go to the front of the line already.</p>");
      return;
    }
    long position = ticket.get().position();
    if (position == 1) {
      page(res, 200, "You are next", "<p>You are already first in line.</p>");
      return;
    }
    BigDecimal cost;
    try {
      cost = room.quoteCost(token, 1);
    } catch (IllegalStateException | TokenNotFoundException e) {
      page(res, 200, "Nothing to skip", "<p>Skipping the line is not available now.</p>");
      return;
    }
    String passNote =
        room.passDuration().isZero()
            ? ""
            : "<p>Includes a VIP pass: for the next "
                + room.passDuration().toMinutes()
                + " minutes you go straight to the front whenever you come back.</p>";
    page(
        res,
        200,
        "Skip the line",
        "<p>You are number <strong>"
            + position
            + "</strong> in line. Move to the front for <strong>$"
            + money(cost)
            + "</strong>.</p>"
            + passNote
            + "<form method=\"post\" action=\""
            + PATH
            + "/confirm\">"
            + "<p><label>Card number (this is a demo: nothing is charged)<br>"
            + "<input name=\"card\" value=\"4242 4242 4242 4242\" autocomplete=\"off\"></label></p>"
            + "<p><button type=\"submit\">Pay $"
            + money(cost)
            + "</button> <a href=\"/\">Back to the line</a></p></form>");
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
    if (!(PATH + "/confirm").equals(req.getRequestURI())) {
      res.sendError(HttpServletResponse.SC_NOT_FOUND);
      return;
    }
    String token = cookie(req, TICKET);
    if (token == null) {
      page(res, 400, "No ticket", "<p>Your browser sent no place in line to move.</p>");
      return;
    }
    PromoteResult result;
    try {
      // A real shop charges the card here (or in its provider's webhook), then promotes.
      result = room.promoteTokenToFront(token);
    } catch (TokenNotFoundException e) {
      page(res, 409, "Not in line", "<p>Your ticket is no longer in line: you may be in.</p>");
      return;
    } catch (IllegalStateException e) {
      page(res, 409, "Already in", "<p>You are already being let in. Nothing was charged.</p>");
      return;
    }
    if (!result.passToken().isEmpty()) {
      res.addHeader("Set-Cookie", passCookie(result.passToken()));
    }
    res.setHeader("Refresh", "3; url=/");
    page(
        res,
        200,
        "Paid",
        "<p>Charged <strong>$"
            + money(result.cost())
            + "</strong> (not really). You moved from number "
            + result.fromPosition()
            + " to number "
            + result.toPosition()
            + ".</p>"
            + (result.passToken().isEmpty() ? "" : "<p>Your VIP pass is in your browser.</p>")
            + "<p><a href=\"/\">Back to the line</a> (automatic in 3 seconds)</p>");
  }

  /** The VIP pass cookie, with the room's cookie settings: HttpOnly, the pass's lifetime. */
  private String passCookie(String passToken) {
    StringBuilder c = new StringBuilder(PASS).append('=').append(passToken);
    c.append("; Max-Age=").append(room.passDuration().toSeconds());
    c.append("; Path=").append(room.cookiePath());
    if (!room.cookieDomain().isEmpty()) {
      c.append("; Domain=").append(room.cookieDomain());
    }
    if (room.secureCookie()) {
      c.append("; Secure");
    }
    return c.append("; HttpOnly; SameSite=Lax").toString();
  }

  private static String money(BigDecimal amount) {
    return amount.setScale(2, RoundingMode.HALF_UP).toPlainString();
  }

  private static String cookie(HttpServletRequest req, String name) {
    Cookie[] cookies = req.getCookies();
    if (cookies != null) {
      for (Cookie c : cookies) {
        if (name.equals(c.getName()) && !c.getValue().isEmpty()) {
          return c.getValue();
        }
      }
    }
    return null;
  }

  private static void page(HttpServletResponse res, int status, String title, String body)
      throws IOException {
    byte[] html =
        ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>"
                + title
                + "</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;"
                + "margin:2rem auto;padding:0 1rem}</style></head><body><h1>"
                + title
                + "</h1>"
                + body
                + "</body></html>")
            .getBytes(StandardCharsets.UTF_8);
    res.setStatus(status);
    res.setContentType("text/html;charset=utf-8");
    res.setHeader("Cache-Control", "no-store");
    res.setContentLength(html.length);
    res.getOutputStream().write(html);
  }
}
