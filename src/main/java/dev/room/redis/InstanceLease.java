package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * This instance's share of the global capacity: the slots it holds in Redis under its current lease
 * generation.
 *
 * <p>Every admitted slot is held under the generation of the instance that admitted it. The
 * instance renews its lease on a heartbeat; a lease not renewed for its TTL lapses and every slot
 * held under it returns to the line. An instance that comes back after its lease lapsed (paused,
 * partitioned) is fenced: the scripts refuse its generation, so it can neither admit nor release on
 * stale state, and it registers a new generation before admitting again.
 *
 * <p>Implementation notes. Invariant: the requests this instance admitted and that still run number
 * {@code held + unbacked}, where {@code held} are backed by slots in Redis under {@code generation}
 * and {@code unbacked} are not (their lease lapsed, or they were let in while Redis was down and
 * the line fails open). An exit absorbs an unbacked slot first, else releases a held one; which
 * request it was does not matter, since slots are interchangeable, and erring that way only keeps a
 * Redis slot a little longer, never frees one twice. Admissions and exits run under the read lock;
 * the heartbeat (which sends {@code held} for Redis to reconcile, so a release lost to an outage
 * comes back) and fencing run under the write lock, so {@code held} never changes while a heartbeat
 * is in flight. Lock order: only this lock; the write lock is never requested while holding the
 * read lock.
 */
final class InstanceLease {
  static final long FENCED = -1;

  private final RedisLink link;
  private final RoomKeys keys;
  private final String name;
  private final long ttlMillis;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicInteger unbacked = new AtomicInteger();
  private volatile String generation; // null = not registered
  private long epoch; // the room's epoch as last registered under; 0 = none known yet
  private final AtomicBoolean lost = new AtomicBoolean();

  InstanceLease(RedisLink link, RoomKeys keys, String name, long ttlMillis) {
    this.link = link;
    this.keys = keys;
    this.name = name;
    this.ttlMillis = ttlMillis;
  }

  /**
   * Runs an admitting script with a live generation; when fenced, registers anew and runs it once
   * more. A reply whose first element is {@code admittedCode} took a slot under the generation.
   */
  List<Object> admit(Function<String, List<Object>> script, long admittedCode, long now) {
    for (int attempt = 0; attempt < 2; attempt++) {
      String gen = generation(now);
      List<Object> reply;
      lock.readLock().lock();
      try {
        if (!gen.equals(generation)) {
          continue; // fenced or renewed meanwhile: take the new generation
        }
        reply = script.apply(gen);
        long code = (Long) reply.get(0);
        if (code != FENCED) {
          if (code == admittedCode) {
            held.incrementAndGet();
          }
          return reply;
        }
      } finally {
        lock.readLock().unlock();
      }
      fence(gen);
    }
    throw new LineUnavailableException("this instance could not renew its lease", null);
  }

  /** A request let in without Redis (fail-open). */
  void admitUnbacked() {
    unbacked.incrementAndGet();
  }

  /** Gives back one slot; returns the script's reply, or null when nothing went to Redis. */
  List<Object> release(long now) {
    String gen;
    lock.readLock().lock();
    try {
      if (decrementIfPositive(unbacked)) {
        return null;
      }
      gen = generation;
      if (gen == null || !decrementIfPositive(held)) {
        return null;
      }
      try {
        List<Object> reply = link.eval(Op.EXIT, keys.all(), gen, Long.toString(now), "1");
        if ((Long) reply.get(0) != FENCED) {
          return reply;
        }
      } catch (LineUnavailableException e) {
        return null; // the next heartbeat reconciles the count Redis holds for us
      }
    } finally {
      lock.readLock().unlock();
    }
    fence(gen);
    return null;
  }

  /**
   * Hands the slot of one admitted request over to a session: {@code script} (given the live
   * generation, or "" for none) moves it out of the lease in Redis and answers 1 when it was held
   * under the generation, else 0 (the lease lapsed and the session took a slot anew). Either way
   * this instance counts one request fewer, as a release would.
   */
  List<Object> handOver(Function<String, List<Object>> script) {
    lock.readLock().lock();
    try {
      String gen = generation;
      List<Object> reply = script.apply(gen == null ? "" : gen);
      if ((Long) reply.get(0) == 1) {
        decrementIfPositive(held);
      } else if (!decrementIfPositive(unbacked)) {
        decrementIfPositive(held); // fenced, and not noticed yet: the fence turns held unbacked
      }
      return reply;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Renews the lease and has Redis reconcile the slots held under it; registers when there is no
   * live generation. Returns the reply.
   */
  List<Object> heartbeat(long now) {
    lock.writeLock().lock();
    try {
      if (generation != null) {
        List<Object> reply =
            link.eval(
                Op.HEARTBEAT,
                keys.all(),
                generation,
                Integer.toString(held.get()),
                Long.toString(now),
                Long.toString(ttlMillis));
        if ((Long) reply.get(0) != FENCED) {
          return reply;
        }
        dropGeneration();
      }
      return register(now);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Ends the lease on a clean shutdown: slots still held return at once. */
  void leave(long now) {
    lock.writeLock().lock();
    try {
      if (generation != null) {
        link.eval(Op.LEAVE, keys.all(), generation, Long.toString(now));
        dropGeneration();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  String generationForTest() {
    return generation;
  }

  int heldForTest() {
    return held.get();
  }

  private String generation(long now) {
    String gen = generation;
    if (gen != null) {
      return gen;
    }
    lock.writeLock().lock();
    try {
      if (generation == null) {
        register(now);
      }
      return generation;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Whether a registration since the last call found that Redis had lost the room (another epoch
   * than the one this instance knew); clears the flag.
   */
  boolean takeLoss() {
    return lost.getAndSet(false);
  }

  /**
   * Caller holds the write lock. When Redis lost the room, the requests this instance still runs
   * are backed again under the new generation (the next heartbeat sends the count), since nothing
   * in Redis counts them any more: were they left unbacked, the fleet would admit beside them.
   */
  private List<Object> register(long now) {
    long candidate = 1 + ThreadLocalRandom.current().nextLong((1L << 50) - 1);
    List<Object> reply =
        link.eval(
            Op.REGISTER,
            keys.all(),
            name,
            Long.toString(now),
            Long.toString(ttlMillis),
            Long.toString(candidate));
    generation = Long.toString((Long) reply.get(0));
    long e = (Long) reply.get(1);
    if (epoch != 0 && e != epoch) {
      held.addAndGet(unbacked.getAndSet(0));
      lost.set(true);
    }
    if (e != 0) {
      epoch = e;
    }
    return reply;
  }

  private void fence(String gen) {
    lock.writeLock().lock();
    try {
      if (gen.equals(generation)) {
        dropGeneration();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Redis has returned every slot held under the generation. Caller holds the write lock. */
  private void dropGeneration() {
    unbacked.addAndGet(held.getAndSet(0));
    generation = null;
  }

  private static boolean decrementIfPositive(AtomicInteger n) {
    int v;
    do {
      v = n.get();
      if (v <= 0) {
        return false;
      }
    } while (!n.compareAndSet(v, v - 1));
    return true;
  }
}
