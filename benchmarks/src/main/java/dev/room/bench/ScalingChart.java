package dev.room.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * Draws the scaling curve as a PNG with Java2D (headless; no fonts or assets beyond the JDK's).
 *
 * <p>Two panels share a logarithmic x axis (10,000 to 10,000,000 queued): status lookup in
 * nanoseconds and {@code queue(100)} in microseconds, each a median line with min–max bars, and a
 * dashed log2(n) model scaled from the 10,000 point. The y axes start at zero so a flat curve looks
 * flat.
 */
final class ScalingChart {
  private static final int W = 980;
  private static final int H = 420;
  private static final Color MEDIAN = new Color(0x1f, 0x5f, 0xa8);
  private static final Color MODEL = new Color(0x99, 0x99, 0x99);
  private static final Color GOAL = new Color(0xc0, 0x39, 0x2b);

  private ScalingChart() {}

  static void write(Path file, List<EngineRuns.Row> rows) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, W, H);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
      g.drawString("room: cost against queue length (1 thread, median with min–max)", 20, 24);
      panel(g, rows, "StatusLookupBenchmark.poll", "status lookup (poll), ns/op", 1, 20, 0);
      panel(g, rows, "QueueReadBenchmark.queue100", "queue(100), µs/op", 1_000, W / 2 + 10, 50);
    } finally {
      g.dispose();
    }
    ImageIO.write(img, "png", file.toFile());
  }

  /** One panel; {@code goal} is a horizontal goal line in the panel's unit, 0 for none. */
  private static void panel(
      Graphics2D g,
      List<EngineRuns.Row> rows,
      String name,
      String title,
      double divisor,
      int x0,
      double goal) {
    int w = W / 2 - 40;
    int left = x0 + 60;
    int right = x0 + w - 10;
    int top = 70;
    int bottom = H - 60;
    String[] sizes = EngineRuns.SCALING;
    double[] med = new double[sizes.length];
    double[] lo = new double[sizes.length];
    double[] hi = new double[sizes.length];
    double ymax = goal * 1.1;
    for (int i = 0; i < sizes.length; i++) {
      EngineRuns.Row r = find(rows, name, Integer.parseInt(sizes[i]));
      med[i] = r == null ? Double.NaN : r.nanos().median() / divisor;
      lo[i] = r == null ? Double.NaN : r.nanos().min() / divisor;
      hi[i] = r == null ? Double.NaN : r.nanos().max() / divisor;
      if (!Double.isNaN(hi[i])) {
        ymax = Math.max(ymax, hi[i]);
      }
    }
    double[] model = new double[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      model[i] = med[0] * log2(Double.parseDouble(sizes[i])) / log2(1e4);
      if (!Double.isNaN(model[i])) {
        ymax = Math.max(ymax, model[i]);
      }
    }
    ymax = niceCeiling(ymax <= 0 || Double.isNaN(ymax) ? 1 : ymax * 1.15);

    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.drawString(title, left, top - 18);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.setStroke(new BasicStroke(1));
    for (int t = 0; t <= 5; t++) {
      double v = ymax * t / 5;
      int y = yOf(v, ymax, top, bottom);
      g.setColor(new Color(0xe6, 0xe6, 0xe6));
      g.drawLine(left, y, right, y);
      g.setColor(Color.DARK_GRAY);
      String label = v >= 100 ? "%.0f".formatted(v) : "%.1f".formatted(v);
      g.drawString(label, left - 8 - g.getFontMetrics().stringWidth(label), y + 4);
    }
    g.setColor(Color.BLACK);
    g.drawLine(left, bottom, right, bottom);
    g.drawLine(left, top, left, bottom);
    String[] xLabels = {"10k", "100k", "1M"};
    for (int i = 0; i < sizes.length; i++) {
      int x = xOf(i, left, right);
      g.drawLine(x, bottom, x, bottom + 4);
      g.drawString(xLabels[i], x - g.getFontMetrics().stringWidth(xLabels[i]) / 2, bottom + 18);
    }
    g.drawString("clients queued (log scale)", (left + right) / 2 - 60, bottom + 38);

    if (goal > 0) {
      int y = yOf(goal, ymax, top, bottom);
      g.setColor(GOAL);
      g.setStroke(dashed());
      g.drawLine(left, y, right, y);
      g.drawString("goal at 100k: " + (int) goal, right - 110, y - 5);
    }
    g.setColor(MODEL);
    g.setStroke(dashed());
    polyline(g, model, ymax, left, right, top, bottom);
    g.setColor(MEDIAN);
    g.setStroke(new BasicStroke(2.5f));
    polyline(g, med, ymax, left, right, top, bottom);
    g.setStroke(new BasicStroke(1.5f));
    for (int i = 0; i < sizes.length; i++) {
      if (Double.isNaN(med[i])) {
        continue;
      }
      int x = xOf(i, left, right);
      int yLo = yOf(lo[i], ymax, top, bottom);
      int yHi = yOf(hi[i], ymax, top, bottom);
      g.drawLine(x, yLo, x, yHi);
      g.drawLine(x - 5, yLo, x + 5, yLo);
      g.drawLine(x - 5, yHi, x + 5, yHi);
      int y = yOf(med[i], ymax, top, bottom);
      g.fillOval(x - 4, y - 4, 8, 8);
      String v = med[i] >= 100 ? "%.0f".formatted(med[i]) : "%.1f".formatted(med[i]);
      g.drawString(v, x + 8, y - 6);
    }
    g.setStroke(new BasicStroke(1));
    g.setColor(MEDIAN);
    g.fillRect(left + 10, top + 4, 14, 3);
    g.setColor(Color.BLACK);
    g.drawString("median (bars: min–max)", left + 30, top + 10);
    g.setColor(MODEL);
    g.fillRect(left + 10, top + 20, 14, 2);
    g.setColor(Color.BLACK);
    g.drawString("log2 n model from 10k", left + 30, top + 26);
  }

  private static void polyline(
      Graphics2D g, double[] v, double ymax, int left, int right, int top, int bottom) {
    for (int i = 1; i < v.length; i++) {
      if (Double.isNaN(v[i - 1]) || Double.isNaN(v[i])) {
        continue;
      }
      g.drawLine(
          xOf(i - 1, left, right),
          yOf(v[i - 1], ymax, top, bottom),
          xOf(i, left, right),
          yOf(v[i], ymax, top, bottom));
    }
  }

  private static BasicStroke dashed() {
    return new BasicStroke(
        1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 5}, 0);
  }

  private static int xOf(int i, int left, int right) {
    return left + 30 + i * (right - left - 60) / 2;
  }

  private static int yOf(double v, double ymax, int top, int bottom) {
    return bottom - (int) Math.round(v / ymax * (bottom - top));
  }

  private static double niceCeiling(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }

  private static EngineRuns.Row find(List<EngineRuns.Row> rows, String name, int queued) {
    for (EngineRuns.Row r : rows) {
      if (r.name().equals(name) && r.threads() == 1 && r.queued() == queued) {
        return r;
      }
    }
    return null;
  }
}
