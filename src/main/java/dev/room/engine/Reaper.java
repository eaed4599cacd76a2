package dev.room.engine;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs eviction passes on one daemon thread, each a cadence after the last one ended; the cadence
 * is read anew after every pass and whenever the settings change.
 *
 * <p>The cadence is real time; what a pass evicts is decided by the room's injected clock.
 *
 * <p>Implementation notes. One pass is pending at a time, due at {@code lastPass + cadence}. A
 * settings change ({@link #reschedule}) only ever brings it forward: when the new cadence makes it
 * due sooner it is moved there (at once if that is already past); otherwise nothing changes. So a
 * reload loop that writes the same settings faster than the cadence cannot starve the reaper, and a
 * longer cadence takes effect from the next pass. A change while a pass runs is read when it ends.
 */
public final class Reaper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Reaper.class);

  /** Where passes run: the reaper's own daemon thread on real time, or a test's hand. */
  public interface Timer {
    /** Now, in nanoseconds on the timer's own time line. */
    long nanoTime();

    /** Runs {@code task} once, {@code delayNanos} from now; the future cancels it. */
    Future<?> schedule(Runnable task, long delayNanos);

    /** Stops running tasks; waits, at most {@code timeoutMillis}, for one already running. */
    void shutdown(long timeoutMillis);
  }

  private final Runnable pass;
  private final LongSupplier intervalMillis;
  private final Timer timer;
  private Future<?> next;
  private long lastPass;
  private long dueAt;
  private boolean closed;

  public Reaper(String name, Runnable pass, LongSupplier intervalMillis) {
    this(pass, intervalMillis, Threads.timer("room-reaper" + (name.isEmpty() ? "" : "-" + name)));
  }

  public Reaper(Runnable pass, LongSupplier intervalMillis, Timer timer) {
    this.pass = pass;
    this.intervalMillis = intervalMillis;
    this.timer = timer;
    synchronized (this) {
      lastPass = timer.nanoTime();
      schedule(lastPass + cadence());
    }
  }

  /** The cadence may have changed: brings the next pass forward if it is now due sooner. */
  public synchronized void reschedule() {
    if (closed) {
      return;
    }
    long due = lastPass + cadence();
    if (due - dueAt < 0 && next.cancel(false)) { // not cancelled: it runs now, and rereads after
      schedule(due);
    }
  }

  private long cadence() {
    return TimeUnit.MILLISECONDS.toNanos(intervalMillis.getAsLong());
  }

  /** Caller holds the monitor. */
  private void schedule(long due) {
    dueAt = due;
    next = timer.schedule(this::runPass, due - timer.nanoTime());
  }

  private void runPass() {
    try {
      pass.run();
    } catch (RuntimeException e) {
      LOG.error("room reaper pass failed; the next pass will retry", e);
    } finally {
      synchronized (this) {
        if (!closed) {
          lastPass = timer.nanoTime();
          schedule(lastPass + cadence());
        }
      }
    }
  }

  /** Stops the passes; waits, bounded, for one that is running. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      next.cancel(false);
    }
    timer.shutdown(Threads.CLOSE_WAIT_MILLIS);
  }
}
