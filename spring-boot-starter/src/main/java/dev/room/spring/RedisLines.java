package dev.room.spring;

import dev.room.redis.RedisLine;
import dev.room.spi.Line;

/** Builds the Redis line; only loaded once Lettuce is known to be on the class path. */
final class RedisLines {
  private RedisLines() {}

  static Line build(RoomProperties.Redis redis, String roomId) {
    RedisLine.Builder b;
    try {
      b = RedisLine.builder(redis.getUri(), roomId);
    } catch (IllegalArgumentException e) {
      throw RoomFactory.bad("room.redis.room-id", e);
    }
    RoomFactory.set("room.redis.lease-ttl", redis.getLeaseTtl(), b::leaseTtl);
    RoomFactory.set("room.redis.command-timeout", redis.getCommandTimeout(), b::commandTimeout);
    RoomFactory.set("room.redis.fail-open", redis.getFailOpen(), b::failOpen);
    RoomFactory.set("room.redis.instance-name", redis.getInstanceName(), b::instanceName);
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw RoomFactory.bad("room.redis.uri", e);
    }
  }
}
