package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import java.time.InstantSource;
import java.util.List;

/**
 * One heartbeat of a {@link RedisLine}, the work {@link Heartbeat} schedules: connects if need be;
 * after a reconnect, first the amnesty for the outage (the resume script: no client's clock runs
 * from before now, and every live lease gets one TTL to be renewed), then the lease renewal; when
 * that renewal found Redis had lost the room, the loss goes to {@link Recovery}, the capacity is
 * sent again and the lease renewed once more; then the tickets of clients let in during an outage
 * are retired, and last a capacity change kept through the outage is applied.
 */
final class Beats {
  private final LineScripts scripts;
  private final InstanceLease lease;
  private final SharedLimits limits;
  private final Recovery recovery;
  private final InstantSource clock;
  private final long leaseTtl;
  private volatile boolean needResume;

  Beats(
      LineScripts scripts,
      InstanceLease lease,
      SharedLimits limits,
      Recovery recovery,
      InstantSource clock,
      long leaseTtl) {
    this.scripts = scripts;
    this.lease = lease;
    this.limits = limits;
    this.recovery = recovery;
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
    if (lease.takeLoss()) {
      recovery.lost(scripts.knownCapacity());
      limits.resend(scripts.knownCapacity(), now);
      scripts.track(lease.heartbeat(now)); // Redis counts the requests this instance still runs
    }
    if (recovery.pending()) {
      recovery.retire(batch -> (int) Replies.code(scripts.eval(Op.REMOVE, removals(now, batch))));
    }
    limits.applyPendingCapacity(now);
    return state;
  }

  /** The arguments of a removal of {@code tokens}, whatever their ticket numbers. */
  private static String[] removals(long now, List<String> tokens) {
    String[] args = new String[1 + 2 * tokens.size()];
    args[0] = Long.toString(now);
    for (int i = 0; i < tokens.size(); i++) {
      args[1 + 2 * i] = tokens.get(i);
      args[2 + 2 * i] = "-1";
    }
    return args;
  }
}
