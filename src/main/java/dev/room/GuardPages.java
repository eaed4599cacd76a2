package dev.room;

import dev.room.engine.Challenges;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The join guard's answers: the challenge page (or its JSON) for a newcomer who has not solved the
 * room's puzzle, 429 for one whose client key took its minute's share, and the challenge endpoint
 * {@code GET <status-path>/challenge}. The page is self-contained: its solver is an inline script
 * that runs a Web Worker made from a Blob, hashing SHA-256 in plain JavaScript; no external script.
 */
final class GuardPages {
  static final String CHALLENGE_TITLE = "Checking your browser";
  static final String CHALLENGE_TEXT =
      "Before you join the line, your browser solves a small puzzle. It takes a few seconds and"
          + " happens by itself; please keep this page open.";
  static final String NOSCRIPT_TEXT =
      "Joining this line needs JavaScript: your browser solves a small puzzle that keeps automated"
          + " ticket farms out. Please turn JavaScript on for this site and reload the page.";
  static final String LIMITED_TITLE = "Too many new arrivals";
  static final String LIMITED_TEXT =
      "Too many places in line were taken from your network in the last minute. Please try again"
          + " in %d seconds; this page does so by itself.";

  /**
   * The solver: {@code challenge-solver.js}, whose worker hashes in plain JavaScript (see the file
   * for why); {@code @URL@}, {@code @COOKIE@} and {@code @ATTRS@} are filled in per page.
   */
  private static final String SOLVER = load("challenge-solver.js");

  private static final String RELOAD = "setTimeout(function(){location.reload();},%d);";

  private GuardPages() {}

  /** A newcomer the join guard turned away. */
  static void refused(
      WaitingRoom r,
      HttpServletRequest req,
      HttpServletResponse res,
      JoinGuard.Refused no,
      String statusPath)
      throws IOException {
    res.setHeader("Cache-Control", "no-store");
    if (!no.challenge()) {
      long wait = no.retryAfterSeconds();
      res.setHeader("Retry-After", Long.toString(wait));
      if (Responses.prefersJson(req)) {
        StatusEndpoint.write(
            res,
            429,
            "{\"ready\":false,\"join_limited\":true,\"retry_after_seconds\":" + wait + "}");
        return;
      }
      html(
          res,
          429,
          page(LIMITED_TITLE, LIMITED_TEXT.formatted(wait), "", RELOAD.formatted(wait * 1000)));
      return;
    }
    String url = req.getServletContext().getContextPath() + statusPath + "/challenge";
    String cookie = Cookies.name(r, JoinGuard.COOKIE);
    if (Responses.prefersJson(req)) {
      StringBuilder b = new StringBuilder(128);
      b.append("{\"ready\":false,\"challenge_required\":true,\"challenge_url\":");
      StatusEndpoint.quote(url, b);
      b.append(",\"cookie\":");
      StatusEndpoint.quote(cookie, b);
      StatusEndpoint.write(res, 403, b.append('}').toString());
      return;
    }
    StringBuilder u = new StringBuilder(url.length() + 8);
    WaitingPage.escapeScript(url, u);
    StringBuilder attrs = new StringBuilder(64);
    attrs.append("; Max-Age=").append(Challenges.LIFETIME_MILLIS / 1000);
    attrs.append("; Path=").append(Cookies.path(req, r.web().cookiePath));
    if (!r.web().cookieDomain.isEmpty()) {
      attrs.append("; Domain=").append(r.web().cookieDomain);
    }
    if (r.web().secureCookie) {
      attrs.append("; Secure");
    }
    attrs.append("; SameSite=Lax");
    StringBuilder a = new StringBuilder(attrs.length() + 8);
    WaitingPage.escapeScript(attrs.toString(), a);
    StringBuilder c = new StringBuilder(cookie.length() + 8);
    WaitingPage.escapeScript(cookie, c);
    String script = SOLVER.replace("@URL@", u).replace("@COOKIE@", c).replace("@ATTRS@", a);
    html(res, 403, page(CHALLENGE_TITLE, CHALLENGE_TEXT, NOSCRIPT_TEXT, script));
  }

  /** {@code GET <status-path>/challenge}: a fresh challenge as ALTCHA's JSON; 404 while off. */
  static void challenge(WaitingRoom r, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    String method = req.getMethod();
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      res.setHeader("Allow", "GET, HEAD");
      res.sendError(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
      return;
    }
    int bits = r.joinChallenge();
    if (bits == 0) {
      StatusEndpoint.write(res, 404, "{\"challenge\":false}");
      return;
    }
    String json = r.joinGuard().challenges().issue(r.name(), bits, r.clock().millis());
    StatusEndpoint.write(res, 200, json);
  }

  private static void html(HttpServletResponse res, int status, byte[] page) throws IOException {
    StatusEndpoint.pagePolicy(res);
    res.setStatus(status);
    res.setContentType("text/html;charset=utf-8");
    res.setContentLength(page.length);
    res.getOutputStream().write(page);
  }

  private static byte[] page(String title, String text, String noscript, String script) {
    StringBuilder b = new StringBuilder(Pages.STYLE.length() + 4096);
    b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<meta name=\"robots\" content=\"noindex\">\n<title>");
    WaitingPage.escape(title, b);
    b.append("</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>")
        .append(Pages.STYLE)
        .append("</style>\n</head>\n<body>\n<main>\n  <div class=\"card\">\n    <h1>");
    WaitingPage.escape(title, b);
    b.append("</h1>\n    <p class=\"muted\" id=\"pow\" role=\"status\">");
    WaitingPage.escape(text, b);
    b.append("</p>\n");
    if (!noscript.isEmpty()) {
      b.append("    <noscript><p class=\"announcement\" id=\"noscript\">");
      WaitingPage.escape(noscript, b);
      b.append("</p></noscript>\n");
    }
    b.append("    <p id=\"again\"")
        .append(noscript.isEmpty() ? "" : " hidden")
        .append("><a class=\"button\" href=\"\">Try again</a></p>\n  </div>\n</main>\n");
    b.append("<script>").append(script).append("</script>\n");
    return b.append("</body>\n</html>\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String load(String name) {
    try (InputStream in = GuardPages.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
