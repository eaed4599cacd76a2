package dev.room;

import java.nio.charset.StandardCharsets;

/**
 * The page a closed sale shows instead of the waiting page: what happened, in plain words, and no
 * progress. A visitor who holds a place reloads it now and then, so a reopened room picks them up.
 */
final class ClosedPage {
  static final int RELOAD_SECONDS = 30;

  private ClosedPage() {}

  static byte[] render(String message, String ticket) {
    StringBuilder b = new StringBuilder(1024);
    b.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<meta name=\"robots\" content=\"noindex\">");
    if (ticket != null) {
      b.append("<meta http-equiv=\"refresh\" content=\"").append(RELOAD_SECONDS).append("\">");
    }
    b.append("<title>This sale has closed</title>")
        .append("<style>body{margin:0;font:16px/1.5 system-ui,sans-serif}")
        .append("main{max-width:34rem;margin:0 auto;padding:2rem 1rem}</style></head><body><main>")
        .append("<h1>This sale has closed</h1><p role=\"status\">");
    WaitingPage.escape(message, b);
    b.append("</p>");
    if (ticket != null) {
      b.append("<p>Should it reopen, you keep your place in line: this page checks by itself.</p>");
    }
    return b.append("</main></body></html>").toString().getBytes(StandardCharsets.UTF_8);
  }
}
