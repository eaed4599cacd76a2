package dev.room.engine;

import dev.room.Event;
import dev.room.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers events to handlers on one daemon thread, off the request path.
 *
 * <p>Each event has any number of handlers, called in the order they were added. The queue is
 * bounded: when handlers are too slow to keep up, further events are dropped and counted rather
 * than holding requests or growing the heap. A throwing handler is logged once per event type and
 * otherwise ignored; the handlers after it still run. Callers ask {@link #listening} first so no
 * snapshot is built for an event nobody wants.
 *
 * <p>Handler lists are immutable and swapped with compare-and-set, so registration never blocks
 * delivery and delivery sees either the old list or the new one.
 */
public final class EventBus implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);
  private static final int QUEUE_LIMIT = 65_536;

  private final AtomicReferenceArray<List<Consumer<Snapshot>>> handlers =
      new AtomicReferenceArray<>(Event.values().length);
  private final boolean[] failureLogged = new boolean[Event.values().length];
  private final BlockingQueue<Snapshot> queue = new ArrayBlockingQueue<>(QUEUE_LIMIT);
  private final AtomicLong dropped = new AtomicLong();
  // Counted from publish to the end of delivery, so an event the worker has taken off the queue
  // but not yet handed over still counts as pending.
  private final AtomicLong pending = new AtomicLong();
  private final Thread worker;
  private volatile boolean closed;

  public EventBus(String name) {
    worker = Threads.daemon("room-events" + (name.isEmpty() ? "" : "-" + name), this::run);
    worker.start();
  }

  /** Adds {@code handler} for {@code event}, after any added earlier. */
  public void on(Event event, Consumer<Snapshot> handler) {
    int i = event.ordinal();
    while (true) {
      List<Consumer<Snapshot>> old = handlers.get(i);
      List<Consumer<Snapshot>> now = new ArrayList<>(old == null ? List.of() : old);
      now.add(handler);
      if (handlers.compareAndSet(i, old, List.copyOf(now))) {
        return;
      }
    }
  }

  /** Removes every handler for {@code event}. */
  public void off(Event event) {
    handlers.set(event.ordinal(), null);
  }

  public boolean listening(Event event) {
    return handlers.get(event.ordinal()) != null;
  }

  /** Queues {@code s} for delivery; never blocks. */
  public void publish(Snapshot s) {
    if (closed) {
      countDrop();
      return;
    }
    pending.incrementAndGet();
    if (!queue.offer(s)) {
      finished();
      countDrop();
    }
  }

  private void countDrop() {
    if (dropped.getAndIncrement() == 0) {
      LOG.warn("room event handlers are not keeping up; dropping events (counted in dropped())");
    }
  }

  /** Events dropped because the handlers fell behind or the bus was closed. */
  public long dropped() {
    return dropped.get();
  }

  /** Waits until every queued event has been handed to its handler, for tests and shutdown. */
  public boolean awaitIdle(long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    synchronized (this) {
      while (pending.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
    return true;
  }

  /**
   * Stops delivery: events still queued are dropped. Waits, bounded, for a handler that is running
   * to return, so no thread of the room outlives it (unless called from a handler).
   */
  @Override
  public void close() {
    closed = true;
    worker.interrupt();
    Threads.join(worker, Threads.CLOSE_WAIT_MILLIS);
  }

  private void run() {
    while (!closed) {
      Snapshot s;
      try {
        s = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        deliver(s);
      } finally {
        finished();
      }
    }
  }

  private void finished() {
    if (pending.decrementAndGet() == 0) {
      synchronized (this) {
        notifyAll();
      }
    }
  }

  private void deliver(Snapshot s) {
    List<Consumer<Snapshot>> hs = handlers.get(s.event().ordinal());
    if (hs == null) {
      return;
    }
    for (Consumer<Snapshot> h : hs) {
      try {
        h.accept(s);
      } catch (RuntimeException | Error e) {
        int i = s.event().ordinal();
        if (!failureLogged[i]) {
          failureLogged[i] = true;
          LOG.warn(
              "room event handler for {} threw; further failures are not logged", s.event(), e);
        }
      }
    }
  }
}
