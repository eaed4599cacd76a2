package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.FleetSettings;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fleet settings in the room's meta hash in Redis ({@code s:<name>}, version {@code sv}),
 * shared by every instance on the room. The line adds its own lease TTL: a dead instance's slots
 * come back one lease TTL after its last beat, a promise the fleet makes with one number.
 */
final class RedisFleetSettings implements FleetSettings {
  /** The line's own setting: how long a dead instance's slots stay held. */
  static final String LEASE_TTL = "leaseTtl";

  private final RedisLink link;
  private final RoomKeys keys;
  private final Map<String, String> own;

  RedisFleetSettings(RedisLink link, RoomKeys keys, java.time.Duration leaseTtl) {
    this.link = link;
    this.keys = keys;
    this.own = Map.of(LEASE_TTL, leaseTtl.toString());
  }

  @Override
  public Map<String, String> own() {
    return own;
  }

  @Override
  public Recorded agree(Map<String, String> proposed) {
    List<String> names = new ArrayList<>(proposed.keySet());
    String[] args = new String[1 + 2 * names.size()];
    args[0] = "agree";
    for (int i = 0; i < names.size(); i++) {
      args[1 + 2 * i] = names.get(i);
      args[2 + 2 * i] = proposed.get(names.get(i));
    }
    return recorded(names, link.eval(Op.FLEET_SETTINGS, keys.all(), args));
  }

  @Override
  public Recorded read(Collection<String> names) {
    List<String> asked = new ArrayList<>(names);
    String[] args = new String[1 + asked.size()];
    args[0] = "get";
    for (int i = 0; i < asked.size(); i++) {
      args[1 + i] = asked.get(i);
    }
    return recorded(asked, link.eval(Op.FLEET_SETTINGS, keys.all(), args));
  }

  @Override
  public long write(String name, String value) {
    return (Long) link.eval(Op.FLEET_SETTINGS, keys.all(), "set", name, value).get(0);
  }

  private static Recorded recorded(List<String> names, List<Object> r) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      if ((Long) r.get(1 + 2 * i) == 1) {
        values.put(names.get(i), (String) r.get(2 + 2 * i));
      }
    }
    return new Recorded((Long) r.get(0), values);
  }
}
