package dev.room.sample;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics}: the registry in Prometheus text format, for a scraper. Mapped outside the
 * room, so it answers while the shop is full. It shows counts, never tokens or client keys.
 */
final class MetricsServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient PrometheusMeterRegistry registry;

  MetricsServlet(PrometheusMeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
    res.setContentType("text/plain; version=0.0.4; charset=utf-8");
    res.setHeader("Cache-Control", "no-store");
    res.setContentLength(body.length);
    res.getOutputStream().write(body);
  }
}
