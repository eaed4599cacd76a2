package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Policy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The status polls of one {@link RedisLine} sent to Redis in batches, one script a batch ({@code
 * ops/polls.lua}): a group commit. A poll that finds no batch on its way goes out at once, alone;
 * polls that arrive meanwhile wait, and the next batch takes all of them (up to {@link #MAX}) as
 * soon as one on its way returns ({@link #IN_FLIGHT} may be). So an idle room's poll costs what it
 * did, and a busy one's polls share a round trip and the script's fixed cost, which was most of a
 * poll's cost in Redis.
 *
 * <p>Every poll still runs the one poll rule, atomically, on Redis's state at the time: a batch
 * runs its polls one after the other inside one script, and the polls of one batch were all in
 * flight at once, so any order among them is one they could have run in. A thread that may send
 * takes the first polls waiting (its own among them, or in its next batch), so polls go in the
 * order they came.
 */
final class PollBatch {
  /** Polls a script answers at most: a batch of 128 keeps Redis busy well under a millisecond. */
  static final int MAX = 128;

  /**
   * Batches on their way at once: two, so that Redis works on one while the other's reply and the
   * next request cross the network, and a poll waits for at most one batch besides its own.
   */
  static final int IN_FLIGHT = 2;

  private final LineScripts scripts;
  private final Object lock = new Object();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private int sending; // threads sending batches now, at most IN_FLIGHT

  PollBatch(LineScripts scripts) {
    this.scripts = scripts;
  }

  /** One poll of {@code token} at {@code now}: the outcome {@code ops/poll.lua} would give. */
  long poll(String token, long now, Policy policy) {
    Pending me = new Pending(token, now, policy);
    synchronized (lock) {
      queue.addLast(me);
      boolean interrupted = false;
      while (!me.done && sending >= IN_FLIGHT) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          interrupted = true; // the poll is on its way: wait for its answer, keep the interrupt
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (me.done) {
        return me.result();
      }
      sending++;
    }
    try {
      while (true) { // the first polls waiting go first: mine may go in a later batch, or another's
        List<Pending> batch;
        synchronized (lock) {
          boolean interrupted = false;
          while (!me.done && queue.isEmpty()) {
            try {
              lock.wait(); // another thread's batch took mine
            } catch (InterruptedException e) {
              interrupted = true;
            }
          }
          if (interrupted) {
            Thread.currentThread().interrupt();
          }
          if (me.done) {
            break;
          }
          batch = take();
        }
        try {
          send(batch);
        } finally {
          synchronized (lock) {
            for (Pending p : batch) {
              p.done = true;
            }
            lock.notifyAll();
          }
        }
      }
    } finally {
      synchronized (lock) {
        sending--;
        lock.notifyAll();
      }
    }
    return me.result();
  }

  /** The first polls waiting that share the first one's policy (the script takes one). */
  private List<Pending> take() {
    List<Pending> batch = new ArrayList<>(Math.min(queue.size(), MAX));
    Policy policy = queue.peekFirst().policy;
    while (batch.size() < MAX && !queue.isEmpty() && queue.peekFirst().policy.equals(policy)) {
      batch.add(queue.pollFirst());
    }
    return batch;
  }

  private void send(List<Pending> batch) {
    Policy p = batch.get(0).policy;
    String[] args = new String[5 + 2 * batch.size()];
    args[0] = Long.toString(p.ttl());
    args[1] = Long.toString(p.firstPollGrace());
    args[2] = Long.toString(p.pollInterval());
    args[3] = Long.toString(p.cookieRefresh());
    args[4] = Long.toString(p.readyTimeout());
    for (int i = 0; i < batch.size(); i++) {
      args[5 + 2 * i] = batch.get(i).token;
      args[6 + 2 * i] = Long.toString(batch.get(i).now);
    }
    try {
      List<Object> r = scripts.eval(Op.POLLS, args);
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).outcome = Replies.outcome(r, 3 * i);
      }
    } catch (RuntimeException e) {
      for (Pending x : batch) {
        x.failure = e;
      }
    }
  }

  /** A poll waiting for its batch; its fields are guarded by the batch's lock once queued. */
  private static final class Pending {
    final String token;
    final long now;
    final Policy policy;
    boolean done;
    long outcome;
    RuntimeException failure;

    Pending(String token, long now, Policy policy) {
      this.token = token;
      this.now = now;
      this.policy = policy;
    }

    long result() {
      if (failure instanceof LineUnavailableException u) {
        throw new LineUnavailableException(u.getMessage(), u); // this thread's own trace
      }
      if (failure != null) {
        throw failure;
      }
      return outcome;
    }
  }
}
