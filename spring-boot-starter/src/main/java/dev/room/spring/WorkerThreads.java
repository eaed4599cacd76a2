package dev.room.spring;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.thread.Threading;
import org.springframework.boot.autoconfigure.web.ServerProperties;
import org.springframework.boot.web.servlet.server.ServletWebServerFactory;
import org.springframework.core.env.Environment;

/**
 * The embedded server's worker threads, and the capacity they leave room for.
 *
 * <p>A gated request holds a worker thread for as long as it holds its slot. When capacity reaches
 * the threads, requests beyond the threads wait in the server's own accept queue, where the room
 * never sees them: they get no waiting page, and the status polls and bypassed paths (health
 * checks) that must always answer queue behind them. So capacity must stay below the threads, with
 * {@link #headroom} to spare. The rule reads the server properties Spring Boot configures the
 * server from; a thread pool set up in code instead is not seen.
 */
final class WorkerThreads {
  /** Unknown server, virtual threads or the check turned off: any capacity passes. */
  static final WorkerThreads UNLIMITED = new WorkerThreads("", "", Integer.MAX_VALUE);

  private static final int MIN_HEADROOM = 10;

  final String server;
  final String property;
  final int threads;

  WorkerThreads(String server, String property, int threads) {
    this.server = server;
    this.property = property;
    this.threads = threads;
  }

  /** Threads kept free of gated requests: a tenth of the pool, at least {@value #MIN_HEADROOM}. */
  static int headroom(int threads) {
    return Math.max(MIN_HEADROOM, threads / 10);
  }

  /** The largest capacity these threads allow (0 or less: none). */
  int maxCapacity() {
    return threads == Integer.MAX_VALUE ? Integer.MAX_VALUE : threads - headroom(threads);
  }

  /** The fewest threads that allow {@code capacity}. */
  static int threadsFor(int capacity) {
    int t = capacity + MIN_HEADROOM;
    while (t - headroom(t) < capacity) {
      t++;
    }
    return t;
  }

  /** Whether {@code capacity} leaves the headroom. */
  boolean fits(int capacity) {
    return capacity <= maxCapacity();
  }

  /**
   * Fails unless {@code capacity} fits, with what is wrong and which setting to change; {@code
   * capacitySource} names where the capacity came from ({@code room.capacity}).
   */
  void check(int capacity, String capacitySource) {
    if (!fits(capacity)) {
      throw new RoomConfigurationException(
          description(capacity, capacitySource), action(capacity, capacitySource), null);
    }
  }

  String description(int capacity, String capacitySource) {
    return capacitySource
        + "="
        + capacity
        + " does not fit "
        + server
        + "'s "
        + threads
        + " worker threads ("
        + property
        + "="
        + threads
        + "): each gated request holds a worker thread, so requests beyond the threads would wait"
        + " unseen in "
        + server
        + "'s accept queue instead of the waiting room, and the status polls and bypassed paths"
        + " (health checks) would queue behind them. Capacity must leave "
        + headroom(threads)
        + " of the "
        + threads
        + " threads free.";
  }

  String action(int capacity, String capacitySource) {
    int max = maxCapacity();
    return (max >= 1 ? "Set " + capacitySource + " to at most " + max + ", or raise " : "Raise ")
        + property
        + " to at least "
        + threadsFor(capacity)
        + ". (If your gated requests are asynchronous and give their thread back while they"
        + " wait, set room.worker-thread-check=false instead.)";
  }

  /** What the embedded server will run gated requests on, as far as its properties say. */
  static WorkerThreads of(
      RoomProperties room,
      ServerProperties server,
      ListableBeanFactory beans,
      Environment environment) {
    if (!room.isWorkerThreadCheck() || server == null || Threading.VIRTUAL.isActive(environment)) {
      return UNLIMITED;
    }
    String[] factories = beans.getBeanNamesForType(ServletWebServerFactory.class, true, false);
    if (factories.length != 1) {
      return UNLIMITED; // none, or several: no one pool to size against
    }
    Class<?> type = beans.getType(factories[0]);
    if (is(type, "org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory")) {
      return new WorkerThreads(
          "Tomcat", "server.tomcat.threads.max", server.getTomcat().getThreads().getMax());
    }
    if (is(type, "org.springframework.boot.web.embedded.jetty.JettyServletWebServerFactory")) {
      return new WorkerThreads(
          "Jetty", "server.jetty.threads.max", server.getJetty().getThreads().getMax());
    }
    if (is(
        type, "org.springframework.boot.web.embedded.undertow.UndertowServletWebServerFactory")) {
      Integer worker = server.getUndertow().getThreads().getWorker();
      // Undertow's own default: eight workers per I/O thread, one I/O thread per core (at least 2).
      int io = Math.max(Runtime.getRuntime().availableProcessors(), 2);
      return new WorkerThreads(
          "Undertow", "server.undertow.threads.worker", worker != null ? worker : io * 8);
    }
    return UNLIMITED;
  }

  private static boolean is(Class<?> type, String className) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(className)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return this == UNLIMITED
        ? "unlimited"
        : server + ": " + threads + " threads (" + property + ")";
  }
}
