package dev.room.redis;

import dev.room.engine.Threads;
import dev.room.spi.LineUnavailableException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a line's heartbeat on one daemon thread: every third of the lease TTL while Redis answers,
 * every {@value #RECONNECT_MILLIS} ms while it does not, and at once when a request finds Redis
 * gone. Logs an outage once when it starts and once when it ends, never per request.
 */
final class Heartbeat implements AutoCloseable {
  static final long RECONNECT_MILLIS = 250;
  private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

  private final String roomId;
  private final long periodMillis;
  private final String failing;
  private final Supplier<RedisLink.State> beat;
  private final ScheduledExecutorService executor;
  private final Threads.Factory threads = new Threads.Factory("room-redis-heartbeat");
  private final AtomicBoolean woken = new AtomicBoolean();
  private ScheduledFuture<?> next;
  private volatile boolean outage;

  /**
   * @param beat one heartbeat: connects if need be and renews; returns {@code DOWN} when Redis is
   *     unreachable
   * @param background false for tests that drive every beat by hand
   */
  Heartbeat(
      String roomId,
      long periodMillis,
      boolean failOpen,
      Supplier<RedisLink.State> beat,
      boolean background) {
    this.roomId = roomId;
    this.periodMillis = periodMillis;
    this.failing = failOpen ? "open" : "closed";
    this.beat = beat;
    this.executor = background ? Executors.newSingleThreadScheduledExecutor(threads) : null;
  }

  /** Runs the first beat on the caller's thread, then schedules the rest. */
  void start() {
    tick();
  }

  /** Beats at once instead of at the next period (a request found Redis gone). */
  void wake() {
    if (woken.compareAndSet(false, true)) {
      schedule(0);
    }
  }

  /** Stops beating; waits, bounded, for a beat in flight (a command times out in time). */
  @Override
  public void close() {
    synchronized (this) {
      if (executor == null) {
        return;
      }
      if (next != null) {
        next.cancel(false);
      }
      executor.shutdown();
    }
    Threads.awaitTermination(executor, threads, Threads.CLOSE_WAIT_MILLIS);
  }

  private void tick() {
    woken.set(false);
    long delay = periodMillis;
    try {
      if (beat.get() == RedisLink.State.DOWN) {
        delay = RECONNECT_MILLIS;
        if (!outage) {
          outage = true;
          LOG.warn("room {}: Redis is unreachable; failing {} until it returns", roomId, failing);
        }
      } else if (outage) {
        outage = false;
        LOG.info("room {}: Redis is reachable again", roomId);
      }
    } catch (LineUnavailableException e) {
      delay = RECONNECT_MILLIS;
    } catch (RuntimeException e) {
      LOG.error("room {}: line heartbeat failed; the next one retries", roomId, e);
    }
    schedule(delay);
  }

  private synchronized void schedule(long delayMillis) {
    if (executor == null || executor.isShutdown()) {
      return;
    }
    if (next != null) {
      next.cancel(false);
    }
    next = executor.schedule(this::tick, delayMillis, TimeUnit.MILLISECONDS);
  }
}
