package dev.room;

import dev.room.spi.FleetSettings;
import dev.room.spi.LineUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The room's side of the settings every instance on its line holds alike ({@link FleetSettings}):
 * the ones whose disagreement would break a promise to a visitor. A ticket's lifetime, the
 * first-poll grace and the offer timeout are applied by whichever instance's reaper or poll gets
 * there first, so the shortest would win for the whole fleet; a queue limit would turn a visitor
 * away on one instance and not another; the admission mode and session durations decide how long a
 * slot is held; the name picks the cookies, so two names would give one browser two places; the
 * poll interval paces every waiting page; the lease TTL is how long a dead instance's slots stay
 * held.
 *
 * <p>At start-up the room's values are agreed with the fleet's: the first instance records them,
 * and one built with a different value fails {@code build()} naming the setting, both values and
 * how to fix it. A setter called on a running room writes the fleet's value, and every other
 * instance adopts it at its next read (at most once a second, on its request path), so the fleet
 * stays agreed and an instance built later must be built with the new value. Settings that may
 * differ (reaper interval, cookies' other attributes, pages, functions) are not here.
 */
final class FleetAgreement {
  private static final Logger LOG = LoggerFactory.getLogger(FleetAgreement.class);

  /**
   * One setting: how the room reads it, applies a recorded value (null: fixed for the process), and
   * what to do to hold the line's value {@code v} instead.
   */
  private record Setting(
      String name, Supplier<String> read, Consumer<String> apply, Function<String, String> fix) {}

  private final FleetSettings store;
  private final Supplier<String> displayName;
  private final Map<String, Setting> settings = new LinkedHashMap<>();
  private boolean started;
  private boolean adopting;
  private long seen = -1; // the store's version this room is in step with; -1: not agreed yet

  FleetAgreement(WaitingRoom room, FleetSettings store, Supplier<String> displayName) {
    this.store = store;
    this.displayName = displayName;
    duration("tokenTtl", room::tokenTtl, room::setTokenTtl);
    duration("firstPollGrace", room::firstPollGrace, room::setFirstPollGrace);
    duration("offerTimeout", room::offerTimeout, room::setOfferTimeout);
    add(
        "maxQueueDepth",
        () -> Long.toString(room.maxQueueDepth()),
        v -> room.setMaxQueueDepth(Long.parseLong(v)));
    add(
        "admissionMode",
        () -> room.admissionMode().name(),
        v -> room.setAdmissionMode(AdmissionMode.valueOf(v)));
    duration("sessionDuration", room::sessionDuration, room::setSessionDuration);
    duration("sessionMaxDuration", room::sessionMaxDuration, room::setSessionMaxDuration);
    add("name", room::name, room::setName);
    String poll = Duration.ofMillis(WaitingRoom.POLL_INTERVAL_MILLIS).toString();
    settings.put(
        "pollInterval",
        new Setting(
            "pollInterval", () -> poll, null, v -> "run one version of room on every instance"));
    for (Map.Entry<String, String> e : store.own().entrySet()) {
      String mine = e.getValue();
      String n = e.getKey();
      settings.put(
          n,
          new Setting(
              n, () -> mine, null, v -> "build this instance's line with " + n + "(" + v + ")"));
    }
  }

  private void duration(String name, Supplier<Duration> get, Consumer<Duration> set) {
    add(name, () -> get.get().toString(), v -> set.accept(Duration.parse(v)));
  }

  private void add(String name, Supplier<String> read, Consumer<String> apply) {
    String setter = "set" + Character.toUpperCase(name.charAt(0)) + name.substring(1);
    Function<String, String> fix =
        v ->
            "build this instance with "
                + name
                + "("
                + v
                + "), or call "
                + setter
                + " on a running instance to change it for the whole line";
    settings.put(name, new Setting(name, read, apply, fix));
  }

  /**
   * The room's settings are applied: agrees them with the fleet's. While the line is unreachable
   * the check waits for the first read that gets through.
   *
   * @throws IllegalStateException naming every setting this instance holds differently from the
   *     fleet, both values and how to fix it
   */
  synchronized void start() {
    started = true;
    Map<String, String> mine = mine();
    FleetSettings.Recorded r;
    try {
      r = store.agree(mine);
    } catch (LineUnavailableException e) {
      LOG.warn(
          "room {}: the line is unreachable; its shared settings are checked when it answers",
          displayName.get());
      return;
    }
    List<String> differ = differences(mine, r);
    if (!differ.isEmpty()) {
      throw new IllegalStateException(
          "room "
              + displayName.get()
              + ": every instance on one line must hold these settings alike, and this one differs"
              + " from the line's: "
              + String.join("; ", differ));
    }
    seen = r.version();
  }

  /** A setter changed {@code name} on this room: it becomes the fleet's. */
  synchronized void changed(String name) {
    if (!started || adopting) {
      return; // the builder's values are agreed at start; an adopted value is the fleet's already
    }
    Setting s = settings.get(name);
    try {
      long v = store.write(name, s.read().get());
      if (v == seen + 1) {
        seen = v; // nothing else changed meanwhile: this room is in step
      }
    } catch (LineUnavailableException e) {
      LOG.warn(
          "room {}: the line is unreachable; {} applies on this instance only",
          displayName.get(),
          name);
    }
  }

  /** Adopts what another instance changed, if anything; one read. From the sale's sync. */
  synchronized void sync() {
    if (!started) {
      return;
    }
    try {
      Map<String, String> mine = mine();
      FleetSettings.Recorded r =
          seen < 0 ? store.agree(mine) : store.read(new ArrayList<>(settings.keySet()));
      if (r.version() == seen) {
        return;
      }
      if (r.version() < seen) {
        // The version went back: the store lost the settings (Redis lost the room). This room's
        // are the fleet's again, unless another instance recorded its own first.
        r = store.agree(mine);
      }
      boolean late = seen < 0;
      seen = r.version();
      adopt(mine, r, late);
    } catch (LineUnavailableException e) {
      // the settings in force stay; the next sync reads again
    }
  }

  private void adopt(Map<String, String> mine, FleetSettings.Recorded r, boolean late) {
    adopting = true;
    try {
      for (Setting s : settings.values()) {
        String fleet = r.values().get(s.name());
        String own = mine.get(s.name());
        if (fleet == null || fleet.equals(own)) {
          continue;
        }
        if (s.apply() == null) {
          LOG.error(
              "room {}: {} is {} on this instance but {} on the line's other instances; {}",
              displayName.get(),
              s.name(),
              own,
              fleet,
              s.fix().apply(fleet));
          continue;
        }
        try {
          s.apply().accept(fleet);
        } catch (RuntimeException e) {
          LOG.warn(
              "room {}: cannot apply the line's {} {} ({}); keeping {}",
              displayName.get(),
              s.name(),
              fleet,
              e.getMessage(),
              own);
          continue;
        }
        if (late) {
          LOG.error(
              "room {}: {} was {} on this instance but {} on the line, whose value it takes (the"
                  + " line was unreachable when this room was built)",
              displayName.get(),
              s.name(),
              own,
              fleet);
        } else {
          LOG.info(
              "room {}: {} {} (set on another instance; was {})",
              displayName.get(),
              s.name(),
              fleet,
              own);
        }
      }
    } finally {
      adopting = false;
    }
  }

  private Map<String, String> mine() {
    Map<String, String> mine = new LinkedHashMap<>();
    settings.values().forEach(s -> mine.put(s.name(), s.read().get()));
    return mine;
  }

  private List<String> differences(Map<String, String> mine, FleetSettings.Recorded r) {
    List<String> out = new ArrayList<>();
    for (Setting s : settings.values()) {
      String fleet = r.values().get(s.name());
      if (fleet != null && !fleet.equals(mine.get(s.name()))) {
        out.add(
            s.name()
                + " is "
                + mine.get(s.name())
                + " here but "
                + fleet
                + " on the line (to fix: "
                + s.fix().apply(fleet)
                + ")");
      }
    }
    return out;
  }
}
