package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Identities;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.time.InstantSource;
import java.util.List;

/**
 * The request path of a {@link RedisLine}: the fast path, an arrival (anonymous or with an
 * identity), a status poll, a claim and a request's exit, one script each. Every slot taken is held
 * under this instance's lease (which registers anew and retries once when fenced). While Redis is
 * unreachable the line fails closed by throwing {@link LineUnavailableException}, or, failing open,
 * lets the request in on a slot the lease counts as unbacked; a client let in so on its claim is
 * remembered by {@link Recovery}, which retires its ticket once Redis returns.
 */
final class Admissions {
  private final LineScripts scripts;
  private final InstanceLease lease;
  private final InstantSource clock;
  private final Recovery recovery;
  private final boolean failOpen;
  private final PollBatch polls; // null: one script a poll (ops/poll.lua)

  /**
   * @param heads the copy of heads that batched polls rank band 0 with; null: one script a poll
   */
  Admissions(
      LineScripts scripts,
      InstanceLease lease,
      Recovery recovery,
      InstantSource clock,
      boolean failOpen,
      HeadsMirror heads) {
    this.polls = heads != null ? new PollBatch(scripts, heads) : null;
    this.scripts = scripts;
    this.lease = lease;
    this.recovery = recovery;
    this.clock = clock;
    this.failOpen = failOpen;
  }

  boolean tryEnter() {
    long now = clock.millis();
    String time = Long.toString(now);
    try {
      List<Object> r = lease.admit(gen -> scripts.eval(Op.ENTER, gen, time), 1, now);
      scripts.track(r);
      return Replies.code(r) == 1;
    } catch (LineUnavailableException e) {
      if (failOpen) {
        lease.admitUnbacked();
        return true;
      }
      throw e;
    }
  }

  void exit(long now) {
    List<Object> r = lease.release(now);
    if (r != null) {
      scripts.track(r);
    }
  }

  long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    String token = Tokens.format(hi, lo);
    String key = clientKey == null ? "" : clientKey;
    String time = Long.toString(now);
    String depth = Long.toString(p.maxQueueDepth());
    try {
      List<Object> r =
          lease.admit(
              gen -> scripts.eval(Op.ARRIVE, gen, token, key, toFront ? "1" : "0", time, depth),
              Outcome.ADMITTED,
              now);
      scripts.track(r);
      return Replies.outcome(r);
    } catch (LineUnavailableException e) {
      return failOpenAdmission(e);
    }
  }

  // identity (one place per person): the rule is in ops/arrive.lua and lib/identity.lua
  long arrive(
      long hi, long lo, String identity, String clientKey, boolean toFront, long now, Policy p) {
    if (Identities.anonymous(identity)) {
      return arrive(hi, lo, clientKey, toFront, now, p);
    }
    String[] args = {
      "",
      Tokens.format(hi, lo),
      clientKey == null ? "" : clientKey,
      toFront ? "1" : "0",
      Long.toString(now),
      Long.toString(p.maxQueueDepth()),
      Identities.prehash(identity),
      Identities.newSalt(), // used only by the room's first identified arrival
      Long.toString(p.ttl()),
      Long.toString(p.firstPollGrace()),
      Long.toString(p.readyTimeout())
    };
    try {
      List<Object> r =
          lease.admit(
              gen -> {
                String[] a = args.clone();
                a[0] = gen;
                return scripts.eval(Op.ARRIVE, a);
              },
              Outcome.ADMITTED,
              now);
      scripts.track(r);
      return Replies.outcome(r);
    } catch (LineUnavailableException e) {
      return failOpenAdmission(e);
    }
  }

  // end identity

  long poll(long hi, long lo, long now, Policy p) {
    try {
      if (polls != null) {
        return polls.poll(hi, lo, now, p);
      }
      return Replies.outcome(
          scripts.eval(
              Op.POLL,
              Tokens.format(hi, lo),
              Long.toString(now),
              Long.toString(p.ttl()),
              Long.toString(p.firstPollGrace()),
              Long.toString(p.pollInterval()),
              Long.toString(p.cookieRefresh()),
              Long.toString(p.readyTimeout())));
    } catch (LineUnavailableException e) {
      if (failOpen) {
        return Outcome.of(Outcome.READY, 0, 0);
      }
      throw e;
    }
  }

  long claim(long hi, long lo, long now, Policy p) {
    String token = Tokens.format(hi, lo);
    String time = Long.toString(now);
    String ttl = Long.toString(p.ttl());
    String grace = Long.toString(p.firstPollGrace());
    String offer = Long.toString(p.readyTimeout());
    String interval = Long.toString(p.pollInterval());
    try {
      List<Object> r =
          lease.admit(
              gen -> scripts.eval(Op.CLAIM, gen, token, time, ttl, grace, offer, interval),
              Outcome.ADMITTED,
              now);
      scripts.track(r);
      return Replies.outcome(r);
    } catch (LineUnavailableException e) {
      long o = failOpenAdmission(e);
      recovery.letIn(token); // its ticket must not stay at the front once Redis returns
      return o;
    }
  }

  private long failOpenAdmission(LineUnavailableException e) {
    if (!failOpen) {
      throw e;
    }
    lease.admitUnbacked();
    return Outcome.of(Outcome.ADMITTED, 0, 0);
  }
}
