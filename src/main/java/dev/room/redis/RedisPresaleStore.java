package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.PresaleStore;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The pre-sale in the room's meta hash in Redis ({@code ops/presale.lua}), shared by every instance
 * on the line. The draw and its record are one script, so it happens once for the fleet whoever
 * calls it. The seed sits in Redis from the schedule on (any instance may be the one to draw):
 * whoever can read the room's keys can read it before the draw.
 */
final class RedisPresaleStore implements PresaleStore {
  private final RedisLink link;
  private final RoomKeys keys;

  RedisPresaleStore(RedisLink link, RoomKeys keys) {
    this.link = link;
    this.keys = keys;
  }

  @Override
  public State read() {
    return state(link.eval(Op.PRESALE, keys.all(), "get"), 0);
  }

  @Override
  public State schedule(long opensAt, String seed) {
    return state(link.eval(Op.PRESALE, keys.all(), "schedule", Long.toString(opensAt), seed), 0);
  }

  @Override
  public State cancel() {
    return state(link.eval(Op.PRESALE, keys.all(), "cancel"), 0);
  }

  @Override
  public State replace(long opensAt, String seed, boolean drawn, int group) {
    return state(
        link.eval(
            Op.PRESALE,
            keys.all(),
            "replace",
            Long.toString(opensAt),
            seed == null ? "" : seed,
            drawn ? "1" : "0",
            Integer.toString(group)),
        0);
  }

  @Override
  public int draw(long now, String seed, IntFunction<int[]> order) {
    String at = Long.toString(now);
    List<Object> r = link.eval(Op.PRESALE, keys.all(), "draw", at, seed);
    while (true) {
      int size = (int) (long) (Long) r.get(0);
      if (size < 0) {
        return -1;
      }
      if ((Long) r.get(1) == 1) {
        return size;
      }
      int[] drawn = order.apply(size);
      if (drawn == null || drawn.length != size) {
        throw new IllegalArgumentException("the draw must order exactly " + size + " arrivals");
      }
      boolean[] seen = new boolean[size];
      String[] args = new String[size + 3];
      args[0] = "draw";
      args[1] = at;
      args[2] = seed;
      for (int i = 0; i < size; i++) {
        int a = drawn[i];
        if (a < 0 || a >= size || seen[a]) {
          throw new IllegalArgumentException("the draw is not a permutation");
        }
        seen[a] = true;
        args[i + 3] = Integer.toString(a);
      }
      r = link.eval(Op.PRESALE, keys.all(), args);
    }
  }

  private static State state(List<Object> r, int from) {
    boolean scheduled = (Long) r.get(from + 2) == 1;
    return new State(
        (Long) r.get(from),
        (Long) r.get(from + 1),
        scheduled ? (String) r.get(from + 3) : null,
        (Long) r.get(from + 4) == 1,
        (int) (long) (Long) r.get(from + 5));
  }
}
