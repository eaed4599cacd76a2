package dev.room.sample;

import java.net.BindException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code make demo}: the sample with a line to watch from the first seconds.
 *
 * <p>A small room ({@code --capacity 3}) with slow pages ({@code --work 2s}) and a built-in crowd
 * of simulated visitors ({@link SimBrowser}s arriving twice a second, at most {@code --crowd 20} at
 * once) that queue, poll like the waiting page and are let in in turn; one in ten closes its tab
 * and is reclaimed. Open the shop in a browser and you join the line behind them. The demo never
 * restores a saved line (its visitors would be long gone) and saves none. Every flag of the sample
 * works ({@code --help}), plus {@code --crowd N} (0 = no crowd) and {@code --arrivals PER_SECOND}.
 * Port 8080 if it is free, else any free port.
 */
public final class Demo {
  private static final Logger LOG = LoggerFactory.getLogger(Demo.class);

  private Demo() {}

  public static void main(String[] args) throws Exception {
    Running demo;
    try {
      demo = start(args, System.getenv());
    } catch (Settings.HelpRequested e) {
      System.out.print(Settings.usage());
      System.out.println(
          "\nDemo only: --crowd N (simulated visitors at once, 0 = none; default 20),"
              + " --arrivals N (a second; default 2)");
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("room-demo: " + e.getMessage());
      System.exit(2);
      return;
    }
    Main.onShutdown(demo::stop);
    demo.sample.join();
  }

  /** The demo's defaults: a line forms at once and moves visibly. */
  static Settings defaults() {
    Settings s = new Settings();
    s.capacity = 3;
    s.work = Duration.ofSeconds(2);
    s.firstPollGrace = Duration.ofSeconds(10); // abandoned tabs are reclaimed while you watch
    s.reaperInterval = Duration.ofSeconds(5);
    s.stateFile = null; // never restore a past run's visitors, never leave a line behind
    return s;
  }

  /** Starts the shop and its crowd; {@code args} as on the command line. */
  static Running start(String[] args, Map<String, String> env) throws Exception {
    List<String> rest = new ArrayList<>();
    int crowd = 20;
    double arrivals = 2;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if ((a.equals("--crowd") || a.equals("--arrivals")) && i + 1 < args.length) {
        String v = args[++i];
        try {
          if (a.equals("--crowd")) {
            crowd = Integer.parseInt(v);
          } else {
            arrivals = Double.parseDouble(v);
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(a + ": '" + v + "' is not a number", e);
        }
        if (crowd < 0 || crowd > 2000 || !(arrivals > 0 && arrivals <= 100)) {
          throw new IllegalArgumentException("--crowd must be 0..2000, --arrivals 0..100");
        }
      } else {
        rest.add(a);
      }
    }
    Settings s = Settings.parse(rest.toArray(new String[0]), env, defaults());
    Main.Sample sample = startOnFreePort(s);
    String base = "http://127.0.0.1:" + sample.port();
    Crowd visitors = new Crowd(base, crowd, arrivals);
    Running running = new Running(sample, visitors);
    LOG.info("");
    LOG.info(
        "Demo: capacity {}, each page takes {} ms, {} simulated visitors",
        s.capacity,
        s.work.toMillis(),
        crowd);
    LOG.info("  Shop (join the line yourself): {}/", base);
    LOG.info("  Operator dashboard:            {}/admin   ({})", base, sample.admin().howToLogIn());
    LOG.info("  Metrics:                       {}/metrics", base);
    LOG.info("  Stop with Ctrl-C.");
    visitors.start();
    running.startReporting();
    return running;
  }

  /** The port asked for (8080 by default), or any free one when it is taken. */
  private static Main.Sample startOnFreePort(Settings s) throws Exception {
    try {
      return Main.start(s);
    } catch (Exception e) {
      if (s.port == 0 || !isBindFailure(e)) {
        throw e;
      }
      LOG.info("Port {} is taken: using a free one", s.port);
      s.port = 0;
      return Main.start(s);
    }
  }

  private static boolean isBindFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return true;
      }
    }
    return false;
  }

  /** A running demo: the sample and its crowd. */
  static final class Running {
    final Main.Sample sample;
    private final Crowd crowd;
    private final Thread reporter;

    Running(Main.Sample sample, Crowd crowd) {
      this.sample = sample;
      this.crowd = crowd;
      this.reporter = new Thread(this::report, "demo-report");
      reporter.setDaemon(true);
    }

    void startReporting() {
      reporter.start();
    }

    /** One line every five seconds, so the terminal shows the line too. */
    private void report() {
      try {
        while (!Thread.currentThread().isInterrupted()) {
          TimeUnit.SECONDS.sleep(5);
          var room = sample.room();
          LOG.info(
              "Line: {} waiting, {}/{} in flight; crowd: {} admitted, {} in line or arriving",
              room.queueDepth(),
              room.inFlight(),
              room.capacity(),
              crowd.admitted(),
              crowd.active());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Stops the crowd, then the sample (gracefully). */
    void stop() {
      reporter.interrupt();
      crowd.stop();
      sample.stop(Duration.ofSeconds(3));
    }
  }

  /** Simulated visitors arriving at a steady pace, at most {@code size} at once. */
  static final class Crowd {
    private final LoadTest client;
    private final int size;
    private final long everyNanos;
    private final Thread arrivals;
    private final List<Visitor> visitors = new ArrayList<>(); // guarded by this
    private long admitted; // visitors let in and already forgotten; guarded by this
    private volatile boolean stopped;

    private record Visitor(SimBrowser browser, Thread thread) {
      boolean admitted() {
        return browser.state() == SimBrowser.State.ADMITTED;
      }
    }

    Crowd(String url, int size, double perSecond) {
      this.client = LoadTest.client(url, Duration.ofSeconds(1), Duration.ofDays(365));
      this.size = size;
      this.everyNanos = (long) (1e9 / perSecond);
      this.arrivals = new Thread(this::arrive, "demo-crowd");
      arrivals.setDaemon(true);
    }

    void start() {
      if (size > 0) {
        arrivals.start();
      }
    }

    void stop() {
      stopped = true;
      arrivals.interrupt();
      synchronized (this) {
        for (Visitor v : visitors) {
          v.thread().interrupt();
        }
      }
    }

    synchronized int active() {
      return (int) visitors.stream().filter(v -> v.thread().isAlive()).count();
    }

    synchronized long admitted() {
      return admitted + visitors.stream().filter(Visitor::admitted).count();
    }

    private void arrive() {
      int id = 0;
      try {
        while (!stopped) {
          synchronized (this) {
            forgetFinished();
            if (visitors.size() < size) {
              SimBrowser.Kind kind =
                  ThreadLocalRandom.current().nextInt(10) == 0
                      ? SimBrowser.Kind.ABANDONS
                      : SimBrowser.Kind.PATIENT;
              SimBrowser b = new SimBrowser(id++, kind, client, System.nanoTime());
              Thread t = new Thread(b, "demo-visitor-" + b.id);
              t.setDaemon(true);
              visitors.add(new Visitor(b, t));
              t.start();
            }
          }
          TimeUnit.NANOSECONDS.sleep(everyNanos);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void forgetFinished() {
      visitors.removeIf(
          v -> {
            if (v.thread().isAlive()) {
              return false;
            }
            if (v.admitted()) {
              admitted++;
            }
            return true;
          });
    }
  }
}
