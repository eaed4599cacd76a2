package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Policy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

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
 * flight at once, so any order among them is one they could have run in. A thread that holds a slot
 * to send takes the first polls waiting (its own among them, or in its next batch), so polls go in
 * the order they came; when its own is answered it passes the slot to the first poll still waiting.
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
    Pending me = new Pending(token, now, policy, Thread.currentThread());
    synchronized (lock) {
      queue.addLast(me);
      if (sending < IN_FLIGHT) {
        sending++;
        me.leads = true;
      }
    }
    // Each waiting poll is woken alone (LockSupport), not all of them at every batch's end: under
    // a loaded CPU, waking every waiter to find most still waiting cost more than the batch saved.
    boolean interrupted = false;
    while (!me.done && !me.leads) {
      LockSupport.park(this);
      interrupted |= Thread.interrupted(); // the poll is on its way: wait for its answer
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (me.done && !me.leads) {
      return me.result();
    }
    try {
      while (true) { // the first polls waiting go first: mine may go in a later batch
        List<Pending> batch;
        synchronized (lock) {
          if (me.done) {
            break;
          }
          batch = take(me);
        }
        if (batch.isEmpty()) { // a poll holding a slot is taken by no other thread
          throw new IllegalStateException("a poll holding a slot was taken by another batch");
        }
        try {
          send(batch);
        } finally {
          for (Pending p : batch) {
            p.done = true;
            LockSupport.unpark(p.thread);
          }
        }
      }
    } finally {
      synchronized (lock) {
        Pending next = null;
        for (Pending p : queue) {
          if (!p.leads) {
            next = p;
            break;
          }
        }
        if (next == null) {
          sending--;
        } else {
          next.leads = true; // the slot passes on to the first poll still waiting
          LockSupport.unpark(next.thread);
        }
      }
    }
    return me.result();
  }

  /**
   * The first polls waiting that share the first one's policy (the script takes one), leaving out
   * those handed a slot to send their own (but for {@code me}).
   */
  private List<Pending> take(Pending me) {
    List<Pending> batch = new ArrayList<>(Math.min(queue.size(), MAX));
    Policy policy = null;
    for (Iterator<Pending> it = queue.iterator(); it.hasNext() && batch.size() < MAX; ) {
      Pending p = it.next();
      if (p.leads && p != me) {
        continue;
      }
      if (policy == null) {
        policy = p.policy;
      } else if (!p.policy.equals(policy)) {
        break;
      }
      batch.add(p);
      it.remove();
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

  /**
   * A poll waiting for its batch. {@code leads} is guarded by the batch's lock; {@code outcome} and
   * {@code failure} are written before {@code done}, which publishes them.
   */
  private static final class Pending {
    final String token;
    final long now;
    final Policy policy;
    final Thread thread;
    volatile boolean leads; // may send batches: holds one of the IN_FLIGHT slots
    volatile boolean done;
    long outcome;
    RuntimeException failure;

    Pending(String token, long now, Policy policy, Thread thread) {
      this.token = token;
      this.now = now;
      this.policy = policy;
      this.thread = thread;
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
