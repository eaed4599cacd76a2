package dev.room;

import java.nio.charset.StandardCharsets;

/**
 * The room's pages other than the waiting page: a closed sale for new arrivals, a full line, and a
 * line that cannot be reached. They share the waiting page's style (one stylesheet, taken from the
 * built-in page), so every page a visitor can meet looks alike and reads well on a 320 px phone.
 */
final class Pages {
  /** The built-in page's stylesheet, shared by every page here. */
  static final String STYLE = style(WaitingPage.DEFAULT.source());

  static final String CLOSED_TEXT = "Nobody more is being let in. Thank you for your interest.";
  static final String FULL_TITLE = "The line is full";
  static final String FULL_TEXT =
      "So many people are waiting that nobody more can join the line right now. Please try again in"
          + " a few minutes.";
  static final String UNAVAILABLE_TITLE = "One moment";
  static final String UNAVAILABLE_TEXT =
      "We are reconnecting to the line. This page checks by itself and carries on once it is back.";
  static final String UNAVAILABLE_KEPT_TEXT =
      "We are reconnecting to the line. If you were waiting, your place is kept. This page checks"
          + " by itself and carries on once it is back.";

  /**
   * Asks the status endpoint, backing off from 5 s to 30 s, and reloads once it answers anything
   * but 503: no timed refresh (axe's meta-refresh rule), and no reload while the line is still
   * away. Without a script the visitor has the link.
   */
  private static final String RETRY_SCRIPT =
      "(function(){var url=\"%s\",wait=5000;function check(){var x=new XMLHttpRequest();"
          + "x.open(\"GET\",url,true);x.setRequestHeader(\"Accept\",\"application/json\");"
          + "x.timeout=10000;x.onload=function(){if(x.status!==503){location.reload();}else{again();}};"
          + "x.onerror=again;x.ontimeout=again;x.send();}"
          + "function again(){wait=Math.min(30000,wait*2);setTimeout(check,wait);}"
          + "setTimeout(check,wait);})();";

  private static final byte[] FULL = page(FULL_TITLE, FULL_TEXT, "", "");

  /**
   * Tiny on purpose (it answers reloads that come too fast, in place of a 7 KB page), so it has no
   * stylesheet; it is on screen for a second. A script brings the page back, not a timed refresh
   * (axe's meta-refresh rule); the link does without one.
   */
  private static final byte[] TOO_FAST =
      ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
              + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
              + "<title>One moment</title></head><body><p role=\"status\">One moment: you are"
              + " still in line, and this page comes back by itself.</p><p><a href=\"\">Back to"
              + " the line</a></p><script>setTimeout(function(){location.reload();},1000);"
              + "</script></body></html>")
          .getBytes(StandardCharsets.UTF_8);

  private static final byte[] CLOSED = page(WaitingPage.TITLE_CLOSED, CLOSED_TEXT, "", "");

  private Pages() {}

  /** What a new arrival at a closed sale reads: no ticket, nothing to wait or come back for. */
  static byte[] closed(String announcement) {
    return announcement.isEmpty()
        ? CLOSED
        : page(WaitingPage.TITLE_CLOSED, CLOSED_TEXT, announcement, "");
  }

  /** The line is at its maximum depth. */
  static byte[] lineFull() {
    return FULL;
  }

  /**
   * A reload of the waiting page sooner than the poll interval: a few hundred bytes instead of the
   * page and its cookies, coming back by themselves.
   */
  static byte[] tooFast() {
    return TOO_FAST;
  }

  /** The line's storage cannot be reached; the place is promised only if the line outlives it. */
  static byte[] unavailable(boolean placeKept, String statusUrl) {
    StringBuilder url = new StringBuilder(statusUrl.length() + 8);
    WaitingPage.escapeScript(statusUrl, url);
    return page(
        UNAVAILABLE_TITLE,
        placeKept ? UNAVAILABLE_KEPT_TEXT : UNAVAILABLE_TEXT,
        "",
        RETRY_SCRIPT.formatted(url));
  }

  private static byte[] page(String title, String text, String announcement, String script) {
    StringBuilder b = new StringBuilder(STYLE.length() + 1024);
    b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<meta name=\"robots\" content=\"noindex\">\n");
    b.append("<title>");
    WaitingPage.escape(title, b);
    b.append("</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>")
        .append(STYLE)
        .append("</style>\n</head>\n<body>\n<main>\n  <div class=\"card\">\n    <h1>");
    WaitingPage.escape(title, b);
    b.append("</h1>\n    <p class=\"muted\" role=\"status\">");
    WaitingPage.escape(text, b);
    b.append("</p>\n");
    if (!announcement.isEmpty()) {
      b.append("    <p class=\"announcement\">");
      WaitingPage.escape(announcement, b);
      b.append("</p>\n");
    }
    if (!script.isEmpty()) {
      b.append("    <p><a class=\"button\" href=\"\">Try again</a></p>\n");
    }
    b.append("  </div>\n</main>\n");
    if (!script.isEmpty()) {
      b.append("<script>").append(script).append("</script>\n");
    }
    return b.append("</body>\n</html>\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String style(String page) {
    int from = page.indexOf("<style>");
    int to = page.indexOf("</style>");
    if (from < 0 || to < from) {
      throw new IllegalStateException("the built-in waiting page has no stylesheet");
    }
    return page.substring(from + "<style>".length(), to);
  }
}
