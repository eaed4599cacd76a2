package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Line;
import dev.room.spi.LineUnavailableException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limits every instance on a Redis line shares: the global capacity, the allowance (a hold set
 * by one instance holds them all) and the admission-rate bucket it is refilled from. A capacity set
 * while Redis is down is kept here and applied by the heartbeat when Redis returns; until then it
 * is what {@link #capacity()} reads. So is the capacity Redis held before it lost the room's state,
 * to be sent again.
 */
final class SharedLimits {
  private static final Logger LOG = LoggerFactory.getLogger(RedisLine.class);

  private final String roomId;
  private final LineScripts scripts;
  private final AtomicInteger pendingCapacity = new AtomicInteger(-1);
  // What this instance last told Redis of the hold and the allowance, re-sent if Redis loses them
  private volatile boolean heldHere;
  private volatile boolean limitedHere;
  private volatile double rateHere; // the rate this instance last metered the line at; 0 for none
  private volatile long burstHere;

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
   * restarts empty and its rate refills it; so does the rate bucket, sent again empty, so that the
   * loss is no fresh burst).
   */
  void resend(int capacity, long now) {
    double rate = rateHere;
    if (heldHere) {
      scripts.update(Op.ALLOWANCE, "hold", "0", "0", Long.toString(now));
    } else if (limitedHere && !(rate > 0)) {
      scripts.update(Op.ALLOWANCE, "set", "0", "0", Long.toString(now));
    }
    if (rate > 0) {
      String r = Double.toString(rate);
      String b = Long.toString(burstHere);
      scripts.update(Op.ALLOWANCE, "meter", r, b, Long.toString(now), "empty");
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

  /** Meters the line with the one bucket every instance refills (Line.meter). */
  long meter(double perSecond, long burst, long now) {
    if (!(perSecond >= 0) || Double.isInfinite(perSecond) || (perSecond > 0 && burst < 1)) {
      throw new IllegalArgumentException("bad rate " + perSecond + " or burst " + burst);
    }
    boolean rated = perSecond > 0;
    String r = rated ? Double.toString(perSecond) : "0";
    List<Object> reply =
        scripts.update(Op.ALLOWANCE, "meter", r, Long.toString(burst), Long.toString(now));
    rateHere = rated ? perSecond : 0;
    burstHere = burst;
    return nextAt(reply);
  }

  /** Adds what accrued since the last refill by any instance (Line.refill). */
  long refill(long now) {
    return nextAt(scripts.update(Op.ALLOWANCE, "refill", "0", "0", Long.toString(now)));
  }

  private static long nextAt(List<Object> reply) {
    long at = Replies.code(reply);
    return at < 0 ? Long.MAX_VALUE : at;
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
    if (!heldHere) {
      rateHere = 0; // an allowance set outright stops the rate (unless a hold keeps it)
    }
    return scripts.update(Op.ALLOWANCE, "set", n, "0", Long.toString(now));
  }
}
