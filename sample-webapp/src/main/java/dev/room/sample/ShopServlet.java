package dev.room.sample;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The application behind the room: a one-page shop whose every request takes {@code work} to
 * answer, like a slow origin.
 *
 * <p>It answers asynchronously, so a waiting request holds a slot but no thread: the room keeps the
 * slot until the async response completes. The application knows nothing about the room.
 */
final class ShopServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** Marks the shop's page, so the load test can tell it from the waiting page. */
  static final String MARKER = "<!-- shop:admitted -->";

  private final Duration work;
  private final transient ScheduledExecutorService clock =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "shop-work");
            t.setDaemon(true);
            return t;
          });

  ShopServlet(Duration work) {
    this.work = work;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    String path = req.getRequestURI();
    if (!path.equals("/") && !path.equals("/index.html")) {
      res.sendError(HttpServletResponse.SC_NOT_FOUND);
      return;
    }
    AsyncContext async = req.startAsync();
    async.setTimeout(work.toMillis() + 30_000);
    clock.schedule(() -> answer(async), work.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void answer(AsyncContext async) {
    try {
      HttpServletResponse res = (HttpServletResponse) async.getResponse();
      byte[] body = page().getBytes(StandardCharsets.UTF_8);
      res.setContentType("text/html;charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.setContentLength(body.length);
      res.getOutputStream().write(body);
    } catch (IOException | IllegalStateException e) {
      // The client went away: nothing to answer. complete() still gives the slot back.
    } finally {
      async.complete();
    }
  }

  private String page() {
    return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Gadget Shop — launch day</title>
        <style>
          body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto;
                 padding: 0 1rem; }
          .card { border: 1px solid #ccc; border-radius: 12px; padding: 1.5rem; }
          .muted { color: #666; }
        </style></head>
        <body>%s
        <div class="card">
          <h1>You're in!</h1>
          <p>Welcome to the Gadget Shop launch. The room let you in because a slot was free.</p>
          <p class="muted">This page took %d ms to build: the room held one of its slots for
          you meanwhile. Reload to go round again — when the shop is busy you will queue.</p>
        </div>
        </body></html>
        """
        .formatted(MARKER, work.toMillis());
  }

  @Override
  public void destroy() {
    clock.shutdownNow();
  }
}
