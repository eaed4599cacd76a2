package dev.room.redis;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The settings a {@link RedisLine.Builder} gathers, with their defaults; {@link LineParts} wires a
 * line from them. The builder checks each value as it is given, with {@link #range}.
 */
final class LineSettings {
  final String redisUri;
  final String roomId;
  Duration leaseTtl = RedisLine.DEFAULT_LEASE_TTL;
  Duration commandTimeout = RedisLine.DEFAULT_COMMAND_TIMEOUT;
  boolean failOpen;
  InstantSource clock = InstantSource.system();
  String instanceName = defaultInstanceName();
  boolean backgroundHeartbeat = true;
  boolean cluster;
  boolean batchPolls = true;

  LineSettings(String redisUri, String roomId) {
    this.redisUri = Objects.requireNonNull(redisUri, "redisUri");
    new RoomKeys(roomId); // validates
    this.roomId = roomId;
  }

  static Duration range(String name, Duration d, Duration min, Duration max) {
    Objects.requireNonNull(d, name);
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was " + d);
    }
    return d;
  }

  private static String defaultInstanceName() {
    String host = System.getenv("HOSTNAME");
    return (host == null || host.isEmpty() ? "instance" : host)
        + "/"
        + ProcessHandle.current().pid()
        + "/"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt());
  }
}
