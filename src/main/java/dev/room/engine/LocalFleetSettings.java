package dev.room.engine;

import dev.room.spi.FleetSettings;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** The fleet settings of a line only one room uses: held in this process. */
public final class LocalFleetSettings implements FleetSettings {
  private final Map<String, String> values = new HashMap<>();
  private long version;

  @Override
  public synchronized Recorded agree(Map<String, String> proposed) {
    boolean wrote = false;
    for (Map.Entry<String, String> e : proposed.entrySet()) {
      wrote |= values.putIfAbsent(e.getKey(), e.getValue()) == null;
    }
    if (wrote) {
      version++;
    }
    return read(proposed.keySet());
  }

  @Override
  public synchronized Recorded read(Collection<String> names) {
    Map<String, String> out = new HashMap<>();
    for (String n : names) {
      String v = values.get(n);
      if (v != null) {
        out.put(n, v);
      }
    }
    return new Recorded(version, out);
  }

  @Override
  public synchronized long write(String name, String value) {
    values.put(name, value);
    return ++version;
  }
}
