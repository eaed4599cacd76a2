package dev.room.redis;

import dev.room.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Redis store contract tests' handles: each is a store of another instance's line on a room of
 * one test redis-server, on the test's clock, its heartbeat driven by hand. Remembers which room a
 * handle is on, so that a test can open another instance of the same room.
 */
final class RoomHandles<T> {
  private final List<RedisLine> lines = new ArrayList<>();
  private final Map<T, String> rooms = new IdentityHashMap<>();

  /** A new instance's line on {@code room}, closed by {@link #close}. */
  RedisLine line(RedisServer redis, String room, FakeClock clock, Duration leaseTtl) {
    RedisLine l =
        RedisLine.builder(redis.uri(), room)
            .clock(clock)
            .leaseTtl(leaseTtl)
            .manualHeartbeat()
            .build();
    lines.add(l);
    return l;
  }

  /** Records that {@code handle} is on {@code room}; returns it. */
  T on(String room, T handle) {
    rooms.put(handle, room);
    return handle;
  }

  /** The room {@code handle} is on. */
  String room(T handle) {
    return rooms.get(handle);
  }

  void close() {
    lines.forEach(RedisLine::close);
  }
}
