package dev.room;

import dev.room.spi.Policy;
import java.time.Duration;

/**
 * The room's engine settings, each range and default written once: the setters and the builder both
 * validate through the static checks here, so a value the builder accepts the setter accepts.
 */
final class RoomSettings {
  static final Duration MIN_TOKEN_TTL = Duration.ofSeconds(30);
  static final Duration MAX_TOKEN_TTL = Duration.ofHours(24);
  static final Duration MIN_REAPER_INTERVAL = Duration.ofSeconds(5);
  static final Duration MAX_REAPER_INTERVAL = Duration.ofHours(24);
  static final Duration MIN_FIRST_POLL_GRACE = Duration.ofSeconds(1);
  static final Duration MAX_FIRST_POLL_GRACE = Duration.ofHours(24);
  static final Duration MIN_OFFER_TIMEOUT = Duration.ofSeconds(5);
  static final Duration MAX_OFFER_TIMEOUT = Duration.ofHours(1);
  static final Duration MIN_PASS_DURATION = Duration.ofMinutes(1);
  static final Duration MAX_PASS_DURATION = Duration.ofHours(24);

  volatile Duration tokenTtl = WaitingRoom.DEFAULT_TOKEN_TTL;
  volatile Duration reaperInterval = WaitingRoom.DEFAULT_REAPER_INTERVAL;
  volatile Duration firstPollGrace = Duration.ZERO;
  volatile Duration offerTimeout = WaitingRoom.DEFAULT_OFFER_TIMEOUT;
  volatile long maxQueueDepth;
  volatile int queueFullStatus = 503;
  volatile Duration passDuration = Duration.ZERO;
  volatile String name = "";

  static Duration tokenTtl(Duration d) {
    return Checks.duration(
        "tokenTtl", d, WaitingRoom.DEFAULT_TOKEN_TTL, MIN_TOKEN_TTL, MAX_TOKEN_TTL);
  }

  static Duration reaperInterval(Duration d) {
    return Checks.duration(
        "reaperInterval",
        d,
        WaitingRoom.DEFAULT_REAPER_INTERVAL,
        MIN_REAPER_INTERVAL,
        MAX_REAPER_INTERVAL);
  }

  static Duration firstPollGrace(Duration d) {
    return Checks.duration(
        "firstPollGrace", d, Duration.ZERO, MIN_FIRST_POLL_GRACE, MAX_FIRST_POLL_GRACE);
  }

  static Duration offerTimeout(Duration d) {
    return Checks.duration(
        "offerTimeout", d, WaitingRoom.DEFAULT_OFFER_TIMEOUT, MIN_OFFER_TIMEOUT, MAX_OFFER_TIMEOUT);
  }

  static Duration passDuration(Duration d) {
    return Checks.duration("passDuration", d, Duration.ZERO, MIN_PASS_DURATION, MAX_PASS_DURATION);
  }

  static long maxQueueDepth(long max) {
    return Checks.nonNegative("maxQueueDepth", max);
  }

  static int queueFullStatus(int status) {
    return Checks.rejectStatus(status);
  }

  static String cookiePath(String path) {
    return Checks.cookieAttribute("cookiePath", path, true);
  }

  static String name(String name) {
    if (name == null || !(name.isEmpty() || name.matches("[a-z0-9-]{1,32}"))) {
      throw Checks.invalid("name", "must be \"\" or 1-32 of [a-z0-9-], was " + name);
    }
    return name;
  }

  /** The line's policy for these settings. */
  Policy policy() {
    long ttl = tokenTtl.toMillis();
    return new Policy(
        ttl,
        firstPollGrace.toMillis(),
        WaitingRoom.POLL_INTERVAL_MILLIS,
        ttl / 3,
        offerTimeout.toMillis(),
        maxQueueDepth,
        HeadOfLine.PRESENCE_WINDOW_MILLIS); // origin (issue 16)
  }

  /** How often the reaper runs: its interval, but at least as often as offers and grace expire. */
  long reaperCadenceMillis() {
    long cadence = Math.min(reaperInterval.toMillis(), offerTimeout.toMillis());
    Duration grace = firstPollGrace;
    if (!grace.isZero()) {
      cadence = Math.min(cadence, grace.toMillis());
    }
    return cadence;
  }

  /** The room's name for logs. */
  String displayName() {
    String n = name;
    return n.isEmpty() ? "(unnamed)" : n;
  }
}
