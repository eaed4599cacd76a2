package dev.room.redis;

import dev.room.spi.LineUnavailableException;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of one {@link RedisLine}, wired from its {@link LineSettings}, and their lifecycle: the
 * heartbeat starts once every part is in place, and {@link #close()} ends the lease before the
 * connection. Fields, not accessors: the parts are fixed at construction and only the line's own
 * classes read them.
 */
final class LineParts {
  private static final Logger LOG = LoggerFactory.getLogger(RedisLine.class);

  final String roomId;
  final InstantSource clock;
  final RedisLink link;
  final InstanceLease lease;
  final LineScripts scripts;
  final SharedLimits limits;
  final Recovery recovery;
  final HeadsMirror heads; // null: one script a poll
  final Admissions admissions;
  final LineManagement management;
  final PassBook passes;
  final LineArchive archive;
  final Beats beats;
  final RedisControls controls;
  final RedisSessionStore sessions;
  final RedisFleetSettings fleetSettings; // fleet settings (u3-settings)
  final Heartbeat heartbeat;

  LineParts(LineSettings s) {
    RoomKeys keys = new RoomKeys(s.roomId);
    long leaseTtl = s.leaseTtl.toMillis();
    this.roomId = s.roomId;
    this.clock = s.clock;
    this.link = new RedisLink(s.redisUri, s.cluster, s.commandTimeout);
    this.lease = new InstanceLease(link, keys, s.instanceName, leaseTtl);
    this.scripts = new LineScripts(link, keys, this::wakeHeartbeat);
    this.limits = new SharedLimits(roomId, scripts);
    this.recovery = new Recovery(roomId);
    this.heads = s.batchPolls ? new HeadsMirror(scripts, clock, roomId) : null;
    this.admissions = new Admissions(scripts, lease, recovery, clock, s.failOpen, heads);
    this.management = new LineManagement(roomId, scripts);
    this.passes = new PassBook(link, keys, s.failOpen);
    this.archive = new LineArchive(scripts, passes);
    this.beats = new Beats(scripts, lease, limits, recovery, clock, leaseTtl);
    this.controls = new RedisControls(link, keys);
    this.sessions = new RedisSessionStore(scripts, lease, clock);
    this.fleetSettings = new RedisFleetSettings(link, keys, s.leaseTtl); // u3-settings
    this.heartbeat =
        new Heartbeat(roomId, leaseTtl / 3, s.failOpen, beats::beat, s.backgroundHeartbeat);
    heartbeat.start();
  }

  /** Stops the heartbeat and ends this instance's lease; slots it still holds return at once. */
  void close() {
    if (heads != null) {
      heads.close();
    }
    heartbeat.close();
    try {
      lease.leave(clock.millis());
    } catch (LineUnavailableException e) {
      LOG.debug("room {}: lease left to lapse, Redis is unreachable", roomId);
    }
    link.close();
  }

  /** Severs the connection without releasing anything, as a crashed instance would; for tests. */
  void crash() {
    if (heads != null) {
      heads.close();
    }
    heartbeat.close();
    link.close();
  }

  /** A script found Redis unreachable: reconnect now rather than at the next beat. */
  private void wakeHeartbeat() {
    heartbeat.wake();
  }
}
