package dev.room.engine;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The room's own threads: daemon threads named {@code room-*}, and a bounded wait for each when the
 * room closes, so a container that undeploys the application finds none of them still running.
 */
public final class Threads {
  /** How long a close waits for one of its threads to finish what it is doing. */
  public static final long CLOSE_WAIT_MILLIS = 5000;

  private static final Logger LOG = LoggerFactory.getLogger(Threads.class);

  private Threads() {}

  /** A daemon thread named {@code name}, not started. */
  public static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * A scheduler on one daemon thread named {@code name}, on real time. Its shutdown drops tasks not
   * yet started and waits, bounded, for one that is running; then interrupts it.
   */
  public static Reaper.Timer timer(String name) {
    Factory threads = new Factory(name);
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return new Reaper.Timer() {
      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public Future<?> schedule(Runnable task, long delayNanos) {
        return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
      }

      @Override
      public void shutdown(long timeoutMillis) {
        executor.shutdown();
        awaitTermination(executor, threads, timeoutMillis);
      }
    };
  }

  /** Makes the daemon threads of one executor, and knows the last one it made. */
  public static final class Factory implements ThreadFactory {
    private final String name;
    private volatile Thread last;

    public Factory(String name) {
      this.name = name;
    }

    @Override
    public Thread newThread(Runnable r) {
      Thread t = daemon(name, r);
      last = t;
      return t;
    }

    boolean isCurrent() {
      return Thread.currentThread() == last;
    }
  }

  /**
   * Waits up to {@code timeoutMillis} for {@code executor} (one thread, made by {@code threads}) to
   * finish, then interrupts what still runs and waits as long again. Never waits on itself.
   */
  public static void awaitTermination(
      ExecutorService executor, Factory threads, long timeoutMillis) {
    String name = threads.name;
    if (threads.isCurrent()) {
      executor.shutdownNow(); // closed from one of its own tasks: it ends when that task returns
      return;
    }
    try {
      if (!executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
        executor.shutdownNow();
        if (!executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
          LOG.warn("thread {} did not stop within {} ms of close", name, 2 * timeoutMillis);
        }
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** Joins {@code t}, bounded, unless it is the calling thread. */
  public static void join(Thread t, long timeoutMillis) {
    if (t == Thread.currentThread()) {
      return;
    }
    try {
      t.join(timeoutMillis);
      if (t.isAlive()) {
        LOG.warn("thread {} did not stop within {} ms of close", t.getName(), timeoutMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
