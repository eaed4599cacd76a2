package dev.room.engine;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs eviction passes on one daemon thread at a cadence read anew after every pass.
 *
 * <p>The cadence is real time; what a pass evicts is decided by the room's injected clock.
 */
public final class Reaper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);

  private final Runnable pass;
  private final LongSupplier intervalMillis;
  private final ScheduledExecutorService executor;
  private ScheduledFuture<?> next;

  public Reaper(String name, Runnable pass, LongSupplier intervalMillis) {
    this.pass = pass;
    this.intervalMillis = intervalMillis;
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "room-reaper" + (name.isEmpty() ? "" : "-" + name));
              t.setDaemon(true);
              return t;
            });
    reschedule();
  }

  /** Cancels the pending pass and schedules the next one from the current cadence. */
  public synchronized void reschedule() {
    if (executor.isShutdown()) {
      return;
    }
    if (next != null) {
      next.cancel(false);
    }
    next = executor.schedule(this::runPass, intervalMillis.getAsLong(), TimeUnit.MILLISECONDS);
  }

  private void runPass() {
    try {
      pass.run();
    } catch (RuntimeException e) {
      LOG.error("room reaper pass failed; the next pass will retry", e);
    }
    reschedule();
  }

  @Override
  public synchronized void close() {
    executor.shutdownNow();
  }
}
