package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import java.time.InstantSource;

/**
 * One heartbeat of a {@link RedisLine}, the work {@link Heartbeat} schedules: connects if need be;
 * after a reconnect, first the amnesty for the outage (the resume script: no client's clock runs
 * from before now, and every live lease gets one TTL to be renewed), then the lease renewal, then a
 * capacity change kept through the outage.
 */
final class Recovery {
  private final LineScripts scripts;
  private final InstanceLease lease;
  private final SharedLimits limits;
  private final InstantSource clock;
  private final long leaseTtl;
  private volatile boolean needResume;

  Recovery(
      LineScripts scripts,
      InstanceLease lease,
      SharedLimits limits,
      InstantSource clock,
      long leaseTtl) {
    this.scripts = scripts;
    this.lease = lease;
    this.limits = limits;
    this.clock = clock;
    this.leaseTtl = leaseTtl;
  }

  /** Returns what the connection did; nothing else happens while Redis is {@code DOWN}. */
  RedisLink.State beat() {
    RedisLink.State state = scripts.link().connect();
    if (state == RedisLink.State.DOWN) {
      return state;
    }
    long now = clock.millis();
    if (state == RedisLink.State.RECONNECTED) {
      needResume = true;
    }
    if (needResume) {
      scripts.eval(Op.RESUME, Long.toString(now), Long.toString(leaseTtl));
      needResume = false;
    }
    scripts.track(lease.heartbeat(now));
    limits.applyPendingCapacity(now);
    return state;
  }
}
