package dev.room.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * Draws the scaling chart as a PNG with Java2D (headless; no fonts or assets beyond the JDK's).
 *
 * <p>Four panels on one logarithmic x axis, 10,000 to 10,000,000 queued: the in-memory status
 * lookup and {@code removeToken} (10k → 10M, with a dashed log2(n) model scaled from the 10,000
 * point), the Redis line's server time per poll for each registered poll path, and status polls per
 * second of the in-memory line and each Redis poll path (10k → 1M; log y). Each series is a median
 * line with min–max bars; red dashes are issue 16's goals. Linear y axes start at zero so a flat
 * curve looks flat.
 */
final class ScalingChart {
  private static final int W = 1100;
  private static final int H = 820;
  private static final Color[] COLORS = {
    new Color(0x1f, 0x5f, 0xa8), new Color(0xe0, 0x8a, 0x00), new Color(0x2e, 0x8b, 0x57)
  };
  private static final Color MODEL = new Color(0x99, 0x99, 0x99);
  private static final Color GOAL = new Color(0xc0, 0x39, 0x2b);
  private static final double[] XS = {1e4, 1e5, 1e6, 1e7};
  private static final String[] X_LABELS = {"10k", "100k", "1M", "10M"};

  /** One curve: medians with min and max at {@link #XS}, NaN where not measured. */
  record Series(String name, double[] med, double[] lo, double[] hi, boolean dashed) {}

  private ScalingChart() {}

  static void write(Path file, List<EngineRuns.Row> rows, RedisResults redis) throws IOException {
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
      g.drawString(
          "room: cost against line length (median, bars min–max; red dashes: issue 16 goals)",
          20,
          24);
      int half = H / 2;
      Series lookup = engine(rows, "StatusLookupBenchmark.poll", "status lookup", 1);
      panel(
          g,
          "in memory: status lookup (poll), ns, 1 thread",
          List.of(lookup, model(lookup)),
          300,
          false,
          20,
          30);
      Series remove = engine(rows, "RemoveTokenScalingBenchmark.removeToken", "removeToken", 1);
      panel(
          g,
          "in memory: removeToken, ns, 1 thread",
          List.of(remove, model(remove)),
          1000,
          false,
          W / 2 + 10,
          30);
      List<Series> server = new ArrayList<>();
      List<Series> rate = new ArrayList<>();
      rate.add(redisSeries(redis, Issue16Report.MEMORY, "polls_per_s", "in memory", false));
      for (String v : redis.variants()) {
        server.add(redisSeries(redis, v, "server_us", "Redis " + v + ": commandstats", false));
        server.add(redisSeries(redis, v, "cpu_us", "Redis " + v + ": CPU", true));
        rate.add(redisSeries(redis, v, "polls_per_s", "Redis " + v, false));
      }
      int t = redis.maxThreads();
      panel(g, "Redis: server µs per status poll, " + t + " threads", server, 10, false, 20, half);
      panel(g, "status polls/s, " + t + " threads (log)", rate, 0, true, W / 2 + 10, half);
    } finally {
      g.dispose();
    }
    ImageIO.write(img, "png", file.toFile());
  }

  private static Series engine(List<EngineRuns.Row> rows, String name, String label, int threads) {
    double[] med = nan();
    double[] lo = nan();
    double[] hi = nan();
    for (int i = 0; i < XS.length; i++) {
      for (EngineRuns.Row r : rows) {
        if (r.name().equals(name) && r.threads() == threads && r.queued() == (int) XS[i]) {
          med[i] = r.nanos().median();
          lo[i] = r.nanos().min();
          hi[i] = r.nanos().max();
        }
      }
    }
    return new Series(label, med, lo, hi, false);
  }

  /** log2(n) scaled from the first point: what a logarithmic cost would do. */
  private static Series model(Series s) {
    double[] m = nan();
    for (int i = 0; i < XS.length; i++) {
      m[i] = s.med()[0] * Math.log(XS[i]) / Math.log(XS[0]);
    }
    return new Series("log2 n model from 10k", m, nan(), nan(), true);
  }

  private static Series redisSeries(
      RedisResults redis, String line, String metric, String label, boolean dashed) {
    double[] med = nan();
    double[] lo = nan();
    double[] hi = nan();
    for (int i = 0; i < XS.length; i++) {
      Figure f = redis.get(line, (int) XS[i], redis.maxThreads(), metric);
      if (f != null) {
        med[i] = f.median();
        lo[i] = f.min();
        hi[i] = f.max();
      }
    }
    return new Series(label, med, lo, hi, dashed);
  }

  private static double[] nan() {
    double[] d = new double[XS.length];
    java.util.Arrays.fill(d, Double.NaN);
    return d;
  }

  /** One panel at (x0, y0); {@code goal} is a horizontal goal line, 0 for none. */
  private static void panel(
      Graphics2D g, String title, List<Series> series, double goal, boolean logY, int x0, int y0) {
    int left = x0 + 70;
    int right = x0 + W / 2 - 40;
    int top = y0 + 72;
    int bottom = y0 + H / 2 - 60;
    double ymax = goal * 1.2;
    double ymin = Double.MAX_VALUE;
    for (Series s : series) {
      for (int i = 0; i < XS.length; i++) {
        for (double v : new double[] {s.med()[i], s.hi()[i]}) {
          if (!Double.isNaN(v) && v > 0) {
            ymax = Math.max(ymax, v);
            ymin = Math.min(ymin, v);
          }
        }
      }
    }
    if (ymax <= 0) {
      ymax = 1;
    }
    double lo;
    double hi;
    if (logY) {
      lo = Math.pow(10, Math.floor(Math.log10(ymin == Double.MAX_VALUE ? 1 : ymin)));
      hi = Math.pow(10, Math.ceil(Math.log10(ymax * 1.05)));
    } else {
      lo = 0;
      hi = niceCeiling(ymax * 1.15);
    }
    Axis y = new Axis(lo, hi, logY, top, bottom);

    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.drawString(title, left, top - 40);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.setStroke(new BasicStroke(1));
    List<Double> ticks = new ArrayList<>();
    if (logY) {
      for (double v = lo; v <= hi * 1.0001; v *= 10) {
        ticks.add(v);
      }
    } else {
      for (int t = 0; t <= 5; t++) {
        ticks.add(hi * t / 5);
      }
    }
    for (double v : ticks) {
      int yy = y.of(v);
      g.setColor(new Color(0xe6, 0xe6, 0xe6));
      g.drawLine(left, yy, right, yy);
      g.setColor(Color.DARK_GRAY);
      String label = number(v);
      g.drawString(label, left - 8 - g.getFontMetrics().stringWidth(label), yy + 4);
    }
    g.setColor(Color.BLACK);
    g.drawLine(left, bottom, right, bottom);
    g.drawLine(left, top, left, bottom);
    for (int i = 0; i < XS.length; i++) {
      int x = xOf(i, left, right);
      g.drawLine(x, bottom, x, bottom + 4);
      g.drawString(X_LABELS[i], x - g.getFontMetrics().stringWidth(X_LABELS[i]) / 2, bottom + 18);
    }
    g.drawString("queued (log scale)", (left + right) / 2 - 45, bottom + 34);
    if (goal > 0) {
      int yy = y.of(goal);
      g.setColor(GOAL);
      g.setStroke(dashed());
      g.drawLine(left, yy, right, yy);
      g.drawString("goal " + number(goal), right - 70, yy - 5);
    }
    int legend = 0;
    int colour = 0;
    for (Series s : series) {
      boolean model = s.name().startsWith("log2");
      Color c =
          model ? MODEL : COLORS[Math.max(0, s.dashed() ? colour - 1 : colour) % COLORS.length];
      if (!model && !s.dashed()) {
        colour++;
      }
      g.setColor(c);
      g.setStroke(s.dashed() ? dashed() : new BasicStroke(2.5f));
      for (int i = 1; i < XS.length; i++) {
        if (!Double.isNaN(s.med()[i - 1]) && !Double.isNaN(s.med()[i])) {
          g.drawLine(
              xOf(i - 1, left, right), y.of(s.med()[i - 1]), xOf(i, left, right), y.of(s.med()[i]));
        }
      }
      g.setStroke(new BasicStroke(1.5f));
      for (int i = 0; i < XS.length; i++) {
        if (Double.isNaN(s.med()[i]) || model) {
          continue;
        }
        int x = xOf(i, left, right);
        if (!Double.isNaN(s.lo()[i])) {
          int yLo = y.of(s.lo()[i]);
          int yHi = y.of(s.hi()[i]);
          g.drawLine(x, yLo, x, yHi);
          g.drawLine(x - 4, yLo, x + 4, yLo);
          g.drawLine(x - 4, yHi, x + 4, yHi);
        }
        int yy = y.of(s.med()[i]);
        g.fillOval(x - 4, yy - 4, 8, 8);
        g.drawString(number(s.med()[i]), x + 7, yy - 6);
      }
      g.setStroke(s.dashed() ? dashed() : new BasicStroke(2.5f));
      int lx = left + (legend % 2) * 210; // legend rows above the plot, two entries a row
      int ly = top - 24 + (legend / 2) * 13;
      g.drawLine(lx, ly - 4, lx + 16, ly - 4);
      g.setColor(Color.BLACK);
      g.drawString(s.name(), lx + 22, ly);
      legend++;
    }
    g.setStroke(new BasicStroke(1));
  }

  /** A y axis from {@code lo} to {@code hi}, linear or logarithmic. */
  private record Axis(double lo, double hi, boolean log, int top, int bottom) {
    int of(double v) {
      double f =
          log
              ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
              : (v - lo) / (hi - lo);
      return bottom - (int) Math.round(f * (bottom - top));
    }
  }

  private static String number(double v) {
    if (v >= 1e6) {
      return "%.1fM".formatted(v / 1e6);
    }
    if (v >= 1e4) {
      return "%.0fk".formatted(v / 1e3);
    }
    return v >= 100 ? "%.0f".formatted(v) : v >= 10 ? "%.1f".formatted(v) : "%.2f".formatted(v);
  }

  private static BasicStroke dashed() {
    return new BasicStroke(
        1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 5}, 0);
  }

  private static int xOf(int i, int left, int right) {
    return left + 30 + i * (right - left - 60) / (XS.length - 1);
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
}
