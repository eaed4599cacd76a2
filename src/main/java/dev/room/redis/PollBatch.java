package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Policy;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * The status polls of one {@link RedisLine} sent to Redis in batches, one script a batch ({@code
 * ops/polls.lua}): a group commit. A poll that finds no batch on its way, or one small batch
 * ({@link #SMALL}), goes out at once; polls that arrive meanwhile wait, and when a batch's reply
 * comes back the next batch takes all of them (up to {@link #MAX}) and goes out from the thread
 * that read the reply, before that reply's polls are woken. So an idle room's poll costs what it
 * did, and a busy one's polls share a round trip and the script's fixed cost, which was most of a
 * poll's cost in Redis.
 *
 * <p>Each waiting thread is woken once, by the reply to its own poll: no thread is woken to send a
 * batch or to hand its answers on. On a machine with few cores each wake-up is a context switch,
 * and they were most of the client's CPU per poll (two or three per batch besides one per poll).
 * The command itself is encoded from bytes made once ({@link PollCommand}).
 *
 * <p>Every poll still runs the one poll rule, atomically, on Redis's state at the time: a batch
 * runs its polls one after the other inside one script, and the polls of one batch were all in
 * flight at once, so any order among them is one they could have run in. Batches take the polls in
 * the order they came and go out in that order on one connection, which Redis answers in order. A
 * failed batch fails each of its polls, each with its own thread's trace.
 */
final class PollBatch {
  /** Polls a script answers at most: a batch of 128 keeps Redis busy well under a millisecond. */
  static final int MAX = 128;

  /**
   * Batches on their way at once: two, so that Redis works on one while the other's reply and the
   * next request cross the network, and a poll waits for at most one batch besides its own.
   */
  static final int IN_FLIGHT = 2;

  /**
   * The second batch goes out beside one on its way only when that one held fewer polls than this:
   * at light load the pair saves a poll a round trip, while under heavy load polls wait for the
   * reply and go together, and a larger batch shares the call's fixed cost in Redis (about a fifth
   * of a poll's at 64 pollers) among more polls. Measured side by side at 100,000 waiting
   * (RedisPollBench): 16 threads as many polls a second as with two batches always, 64 threads 15%
   * less Redis time a poll and 2% more polls a second.
   */
  static final int SMALL = 10;

  private final LineScripts scripts;
  private final PollCommand command;
  private final HeadsMirror heads;
  private final Object lock = new Object();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private int sending; // batches on their way
  private int lastSent; // polls in the batch sent last

  PollBatch(LineScripts scripts, HeadsMirror heads) {
    this.scripts = scripts;
    this.heads = heads;
    LuaScripts lua = scripts.link().scripts();
    this.command = new PollCommand(lua.sha(Op.POLLS), lua.source(Op.POLLS), scripts.keys().all());
  }

  /**
   * One poll of the token {@code hi, lo} at {@code now}: the outcome {@code ops/poll.lua} gives.
   */
  long poll(long hi, long lo, long now, Policy policy) {
    // before the poll is queued: take() reads each queued poll's policy holding a sending slot
    Objects.requireNonNull(policy, "policy");
    Pending me = new Pending(hi, lo, now, policy, Thread.currentThread());
    Pending[] batch = null;
    synchronized (lock) {
      queue.addLast(me);
      if (sending == 0 || (sending < IN_FLIGHT && lastSent < SMALL)) {
        sending++;
        batch = take();
        lastSent = batch.length;
      }
    }
    if (batch != null) {
      send(batch);
    }
    boolean interrupted = false;
    while (!me.done) {
      LockSupport.park(this);
      interrupted |= Thread.interrupted(); // the poll is on its way: wait for its answer
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    long outcome = me.result();
    if (me.place >= 0) {
      // the copy of heads could not rank it (replaced while the batch was out): Redis does
      long position = Replies.num(scripts.eval(Op.HEADS, "rank", Long.toString(me.place)), 0);
      outcome |= position; // answered with position 0
    }
    return outcome;
  }

  /**
   * The first polls waiting that share the first one's policy (the script takes one); the caller
   * holds the lock and a sending slot, and the queue is not empty.
   */
  private Pending[] take() {
    Policy policy = queue.peekFirst().policy;
    int n = 0;
    for (Pending p : queue) {
      if (n == MAX || !p.policy.equals(policy)) {
        break;
      }
      n++;
    }
    Pending[] batch = new Pending[n];
    for (int i = 0; i < n; i++) {
      batch[i] = queue.pollFirst();
    }
    return batch;
  }

  private void send(Pending[] batch) {
    HeadsMirror.Since since = heads.since();
    try {
      scripts.evalAsync(
          whole -> command.command(whole, batch[0].policy, since, batch, batch.length),
          (reply, failure) -> answered(batch, since, reply, failure));
    } catch (RuntimeException e) {
      answered(batch, since, null, e);
    }
  }

  /**
   * A batch's reply or failure: the next batch goes out first, so that Redis has it while this
   * one's polls are woken; a slot with nothing waiting is given back.
   */
  private void answered(
      Pending[] batch, HeadsMirror.Since since, long[] reply, RuntimeException failure) {
    Pending[] next = null;
    synchronized (lock) {
      if (queue.isEmpty()) {
        sending--;
      } else {
        next = take();
        lastSent = next.length;
      }
    }
    if (next != null) {
      send(next);
    }
    try {
      int at = 3 * batch.length; // the log for the copy of heads follows the polls
      if (failure == null
          && (reply == null
              || reply.length < at + 4
              || reply.length < at + 4 + 4 * reply[at + 2])) {
        failure = new IllegalStateException("the polls script answered too few polls");
      }
      boolean ranks = failure == null && heads.apply(since, reply, at);
      for (int i = 0; failure == null && i < batch.length; i++) {
        long position = reply[3 * i + 1];
        if (position < 0) { // band 0's group at place -position - 1, for the copy to rank
          long place = -position - 1;
          position = ranks ? heads.position(since, place) : -1;
          if (position < 0) {
            batch[i].place = place;
            position = 0;
          }
        }
        batch[i].outcome = Replies.outcome(reply[3 * i], position, reply[3 * i + 2]);
      }
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      // every poll of the batch is woken, whatever went wrong: none waits for ever
      for (Pending p : batch) {
        p.failure = failure;
        p.done = true;
        LockSupport.unpark(p.thread);
      }
    }
  }

  /**
   * A poll waiting for its batch. {@code outcome} and {@code failure} are written before {@code
   * done}, which publishes them.
   */
  private static final class Pending implements PollCommand.Poll {
    final byte[] token;
    final long now;
    final Policy policy;
    final Thread thread;
    volatile boolean done;
    long outcome;
    long place = -1; // a deferred position that the copy of heads could not rank
    RuntimeException failure;

    Pending(long hi, long lo, long now, Policy policy, Thread thread) {
      this.token = PollCommand.token(hi, lo);
      this.now = now;
      this.policy = policy;
      this.thread = thread;
    }

    @Override
    public byte[] token() {
      return token;
    }

    @Override
    public long now() {
      return now;
    }

    long result() {
      if (failure instanceof LineUnavailableException u) {
        throw new LineUnavailableException(u.getMessage(), u); // this thread's own trace
      }
      if (failure instanceof IllegalStateException s) {
        throw new IllegalStateException(s.getMessage(), s);
      }
      if (failure != null) {
        throw failure;
      }
      return outcome;
    }
  }
}
