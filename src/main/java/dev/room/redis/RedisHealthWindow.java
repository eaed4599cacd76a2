package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.HealthWindow;
import java.util.List;

/**
 * The health window in the room's meta hash in Redis ({@code ops/health.lua}), fed by every
 * instance on the line: adding and closing are one script, so each window closes once, for the one
 * instance whose add closed it.
 */
final class RedisHealthWindow implements HealthWindow {
  private final RedisLink link;
  private final RoomKeys keys;

  RedisHealthWindow(RedisLink link, RoomKeys keys) {
    this.link = link;
    this.keys = keys;
  }

  @Override
  public Closed add(Samples s, long now, Rule rule) {
    if (s.count() <= 0) {
      return null;
    }
    long[] lat = s.latencies();
    String[] args = new String[9 + lat.length];
    args[0] = "add";
    args[1] = Long.toString(now);
    args[2] = Long.toString(rule.windowMillis());
    args[3] = Integer.toString(rule.minSamples());
    args[4] = Long.toString(rule.maxWindowMillis());
    args[5] = Integer.toString(rule.kept());
    args[6] = Integer.toString(s.count());
    args[7] = Integer.toString(s.errors());
    args[8] = Integer.toString(s.peakInFlight());
    for (int i = 0; i < lat.length; i++) {
      args[9 + i] = Long.toString(lat[i]);
    }
    List<Object> r = link.eval(Op.HEALTH, keys.all(), args);
    if ((Long) r.get(0) == 0) {
      return null;
    }
    long[] kept = new long[r.size() - 8];
    for (int i = 0; i < kept.length; i++) {
      kept[i] = (Long) r.get(8 + i);
    }
    return new Closed(
        (Long) r.get(1),
        (int) (long) (Long) r.get(2),
        (int) (long) (Long) r.get(3),
        (int) (long) (Long) r.get(4),
        kept,
        (Long) r.get(5) == 1 ? (String) r.get(6) : null,
        (int) (long) (Long) r.get(7));
  }

  @Override
  public void save(String state) {
    link.eval(Op.HEALTH, keys.all(), "save", state);
  }
}
