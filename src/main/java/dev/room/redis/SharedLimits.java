package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Line;
import dev.room.spi.LineUnavailableException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limits every instance on a Redis line shares: the global capacity and the allowance (a hold
 * set by one instance holds them all). A capacity set while Redis is down is kept here and applied
 * by the heartbeat when Redis returns; until then it is what {@link #capacity()} reads. So is the
 * capacity Redis held before it lost the room's state, to be sent again.
 */
final class SharedLimits {
  private static final Logger LOG = LoggerFactory.getLogger(RedisLine.class);

  private final String roomId;
  private final LineScripts scripts;
  private final AtomicInteger pendingCapacity = new AtomicInteger(-1);
  // What this instance last told Redis of the hold and the allowance, re-sent if Redis loses them
  private volatile boolean heldHere;
  private volatile boolean limitedHere;

  SharedLimits(String roomId, LineScripts scripts) {
    this.roomId = roomId;
    this.scripts = scripts;
  }

  int capacity() {
    int pending = pendingCapacity.get();
    return pending >= 0 ? pending : scripts.capacity();
  }

  int freeSlots() {
    return (int) (capacity() - scripts.inFlight() - scripts.ready());
  }

  void setCapacity(int capacity, long now) {
    pendingCapacity.set(capacity);
    try {
      scripts.update(Op.CAPACITY, Integer.toString(capacity), Long.toString(now));
      pendingCapacity.compareAndSet(capacity, -1);
    } catch (LineUnavailableException e) {
      LOG.warn(
          "room {}: Redis is unreachable; capacity {} applies when it returns", roomId, capacity);
    }
  }

  /** Applies a capacity change kept through an outage; the heartbeat's, once Redis answers. */
  void applyPendingCapacity(long now) {
    int pending = pendingCapacity.get();
    if (pending >= 0) {
      scripts.update(Op.CAPACITY, Integer.toString(pending), Long.toString(now));
      pendingCapacity.compareAndSet(pending, -1);
    }
  }

  /**
   * After Redis lost the room: its capacity is sent again, unless a change already waits; before
   * it, a paused or rated line must not come back unlimited (a pause wins; a limited allowance
   * restarts empty and its rate refills it).
   */
  void resend(int capacity, long now) {
    if (heldHere) {
      scripts.update(Op.ALLOWANCE, "hold", "0", "0", Long.toString(now));
    } else if (limitedHere) {
      scripts.update(Op.ALLOWANCE, "set", "0", "0", Long.toString(now));
    }
    pendingCapacity.compareAndSet(-1, capacity);
  }

  void setAllowance(long allowance, long now) {
    set(allowance, now);
  }

  long replaceAllowance(long allowance, long now) {
    long was = Replies.code(set(allowance, now));
    return was < 0 ? Line.UNLIMITED : was;
  }

  void addAllowance(long n, long max, long now) {
    scripts.update(Op.ALLOWANCE, "add", Long.toString(n), Long.toString(max), Long.toString(now));
  }

  /** Holds the shared line for every instance: a refill by any of them adds nothing meanwhile. */
  void hold(boolean held, long now) {
    heldHere = held;
    scripts.update(Op.ALLOWANCE, held ? "hold" : "free", "0", "0", Long.toString(now));
  }

  private List<Object> set(long allowance, long now) {
    if (allowance < 0) {
      throw new IllegalArgumentException("allowance must not be negative, was " + allowance);
    }
    String n = allowance == Line.UNLIMITED ? "inf" : Long.toString(allowance);
    limitedHere = allowance != Line.UNLIMITED;
    return scripts.update(Op.ALLOWANCE, "set", n, "0", Long.toString(now));
  }
}
