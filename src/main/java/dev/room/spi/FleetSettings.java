package dev.room.spi;

import java.util.Collection;
import java.util.Map;

/**
 * The settings every instance on one line must hold alike (the ticket lifetime, the offer timeout,
 * the admission mode, ...: a disagreement would break a promise the room makes to a visitor), as
 * the fleet records them. The first instance to start records its values; every later one compares
 * its own with them at start-up, and a change made on a running instance is written here and read
 * by the others. Values are the room's own encodings (ISO-8601 durations, decimal numbers, enum
 * names); a version moves on every write.
 */
public interface FleetSettings {
  /**
   * What the fleet has recorded.
   *
   * @param version moves on every write; 0 when nothing was ever recorded (or the store lost it)
   * @param values the recorded value of each setting asked for that has one
   */
  record Recorded(long version, Map<String, String> values) {
    public Recorded {
      values = Map.copyOf(values);
    }
  }

  /**
   * Settings the line brings itself (its own configuration, such as a lease TTL), agreed with the
   * room's; empty by default.
   */
  default Map<String, String> own() {
    return Map.of();
  }

  /**
   * Records each of {@code proposed} that has no value yet and returns what is recorded for every
   * one of them, so the answer is the fleet's values, the proposal's only where the fleet had none.
   * Atomic: of two instances proposing at once, one records and the other reads it.
   */
  Recorded agree(Map<String, String> proposed);

  /** The recorded values of {@code names} and the version. */
  Recorded read(Collection<String> names);

  /** Records {@code value} as the fleet's {@code name}, whatever was there; returns the version. */
  long write(String name, String value);
}
