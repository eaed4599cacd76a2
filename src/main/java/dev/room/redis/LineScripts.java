package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Line;
import dev.room.spi.LineUnavailableException;
import io.lettuce.core.protocol.RedisCommand;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * How a {@link RedisLine} runs its scripts: EVALSHA on the room's keys, and the counters that each
 * state-changing reply carries (capacity, in flight, ready, waiting, used, allowance at elements 3
 * to 8), kept as last seen so that reads between replies cost no round trip. A script that finds
 * Redis unreachable wakes the heartbeat, which reconnects.
 */
final class LineScripts {
  private final RedisLink link;
  private final RoomKeys keys;
  private final Runnable unreachable;

  // The counters as of the last reply from Redis.
  private volatile int capacity;
  private volatile int knownCapacity; // the last capacity Redis held, re-sent if Redis loses it
  private volatile int inFlight;
  private volatile long ready;
  private volatile long waiting;
  private volatile boolean used;
  private volatile long allowance = Line.UNLIMITED;

  /**
   * @param unreachable run when a script finds Redis unreachable (wakes the heartbeat)
   */
  LineScripts(RedisLink link, RoomKeys keys, Runnable unreachable) {
    this.link = link;
    this.keys = keys;
    this.unreachable = unreachable;
  }

  RedisLink link() {
    return link;
  }

  RoomKeys keys() {
    return keys;
  }

  /** Runs one script on the room's keys and returns its reply. */
  List<Object> eval(Op op, String... args) {
    try {
      return link.eval(op, keys.all(), args);
    } catch (LineUnavailableException e) {
      unreachable.run();
      throw e;
    }
  }

  /**
   * Sends a script's command without waiting ({@link RedisLink#evalAsync}); a failure that finds
   * Redis unreachable wakes the heartbeat, as {@link #eval} does.
   */
  <T> void evalAsync(
      Function<Boolean, RedisCommand<byte[], byte[], T>> script,
      BiConsumer<T, RuntimeException> done) {
    link.evalAsync(
        script,
        (reply, failure) -> {
          try {
            if (failure instanceof LineUnavailableException) {
              unreachable.run();
            }
          } finally {
            done.accept(reply, failure);
          }
        });
  }

  /** Runs a session script (its keys: the room's, then the session store's). */
  List<Object> evalSessions(Op op, String... args) {
    try {
      return link.eval(op, keys.sessions(), args);
    } catch (LineUnavailableException e) {
      unreachable.run();
      throw e;
    }
  }

  /** Runs a script whose reply carries the counters, and notes them. */
  List<Object> update(Op op, String... args) {
    return track(eval(op, args));
  }

  /** Notes the counters a reply carries; returns the reply. */
  List<Object> track(List<Object> r) {
    capacity = (int) Replies.num(r, 3);
    if (capacity > 0) {
      knownCapacity = capacity;
    }
    inFlight = (int) Replies.num(r, 4);
    ready = Replies.num(r, 5);
    waiting = Replies.num(r, 6);
    used = Replies.num(r, 7) != 0;
    long a = Replies.num(r, 8);
    allowance = a < 0 ? Line.UNLIMITED : a;
    return r;
  }

  /** Reads the counters from Redis when connected; while it is down the last values seen stand. */
  LineScripts refresh() {
    if (link.connected()) {
      try {
        update(Op.COUNTERS);
      } catch (LineUnavailableException e) {
        // the last values seen stand in
      }
    }
    return this;
  }

  int capacity() {
    return capacity;
  }

  /** The last capacity above zero a reply carried: what Redis held before it lost the room. */
  int knownCapacity() {
    return knownCapacity;
  }

  int inFlight() {
    return inFlight;
  }

  long ready() {
    return ready;
  }

  long waiting() {
    return waiting;
  }

  boolean used() {
    return used;
  }

  long allowance() {
    return allowance;
  }

  /**
   * Checks the storage invariants in Redis; for tests, at quiescent points.
   *
   * @throws IllegalStateException naming every invariant that does not hold
   */
  void checkInvariants() {
    List<Object> broken = eval(Op.CHECK);
    if (!broken.isEmpty()) {
      throw new IllegalStateException("line invariants broken: " + broken);
    }
  }
}
