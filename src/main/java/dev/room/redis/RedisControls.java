package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Controls;
import java.util.List;

/** The sale controls in the room's meta hash in Redis, shared by every instance on the line. */
final class RedisControls implements Controls {
  private final RedisLink link;
  private final RoomKeys keys;

  RedisControls(RedisLink link, RoomKeys keys) {
    this.link = link;
    this.keys = keys;
  }

  @Override
  public Settings read() {
    List<Object> r = link.eval(Op.CONTROLS, keys.all(), "get");
    return new Settings((Long) r.get(0), value(r, 1), value(r, 3), value(r, 5));
  }

  @Override
  public long write(String control, String value) {
    if (!MODE.equals(control) && !ANNOUNCEMENT.equals(control) && !RATE.equals(control)) {
      throw new IllegalArgumentException("no control named " + control);
    }
    return (Long) link.eval(Op.CONTROLS, keys.all(), "set", control, value).get(0);
  }

  private static String value(List<Object> r, int flag) {
    return (Long) r.get(flag) == 1 ? (String) r.get(flag + 1) : null;
  }
}
