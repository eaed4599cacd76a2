package dev.room;

import dev.room.engine.Reaper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/** A {@link Reaper.Timer} the test moves by hand: tasks run when it is advanced past their time. */
public final class ManualTimer implements Reaper.Timer {
  private record Task(long due, long seq, FutureTask<Void> task) {}

  private final List<Task> tasks = new ArrayList<>();
  private long now = 4_000_000_000_000L; // an odd origin
  private long seq;
  private int ran;
  private boolean shut;

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public synchronized Future<?> schedule(Runnable task, long delayNanos) {
    FutureTask<Void> f = new FutureTask<>(task, null);
    if (!shut) {
      tasks.add(new Task(now + Math.max(0, delayNanos), seq++, f));
    }
    return f;
  }

  @Override
  public synchronized void shutdown(long timeoutMillis) {
    shut = true;
    tasks.clear();
  }

  /** Moves time on by {@code d}, running every task that falls due on the way, in time order. */
  public void advance(Duration d) {
    long until;
    synchronized (this) {
      until = now + d.toNanos();
    }
    while (true) {
      Task next;
      synchronized (this) {
        next =
            tasks.stream()
                .filter(t -> t.due() <= until)
                .min(Comparator.comparingLong(Task::due).thenComparingLong(Task::seq))
                .orElse(null);
        if (next == null) {
          now = until;
          return;
        }
        tasks.remove(next);
        now = Math.max(now, next.due());
        if (!next.task().isCancelled()) {
          ran++;
        }
      }
      next.task().run(); // outside the monitor, as a real timer thread would
    }
  }

  /** Tasks run so far (cancelled ones not counted). */
  public synchronized int ran() {
    return ran;
  }

  /** Tasks waiting to run. */
  public synchronized int pending() {
    return (int) tasks.stream().filter(t -> !t.task().isCancelled()).count();
  }
}
