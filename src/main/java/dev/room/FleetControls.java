package dev.room;

import dev.room.spi.Controls;
import dev.room.spi.LineUnavailableException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sale's mode, announcement and admission rate, kept in step with the line's {@link Controls}
 * (the fleet's when the line is shared, else a {@link dev.room.engine.LocalControls} of this room's
 * own): a setting made here is written for the fleet, and one made elsewhere is adopted at the next
 * read.
 *
 * <p>Implementation notes. Every method but the getters is called under the {@link Sale}'s monitor,
 * which serialises the writes; the request path reads the volatile fields only.
 */
final class FleetControls {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingRoom.class);

  private final Controls controls;
  private final Supplier<String> displayName;
  private volatile RoomMode mode = RoomMode.OPEN;
  private volatile String announcement = "";
  private volatile double admissionRate;
  private volatile long seen; // the controls' version this room is in step with
  private String sharedMode; // what the fleet had at the last read; null for nothing
  private String sharedAnnouncement;
  private String sharedRate;

  FleetControls(Controls controls, Supplier<String> displayName) {
    this.controls = controls;
    this.displayName = displayName;
  }

  RoomMode mode() {
    return mode;
  }

  String announcement() {
    return announcement;
  }

  double admissionRate() {
    return admissionRate;
  }

  /** One read of the controls. */
  Controls.Settings read() {
    return controls.read();
  }

  /** Whether {@code s} holds a change this room has not adopted. */
  boolean changed(Controls.Settings s) {
    return s.version() != seen;
  }

  /** Whether the fleet had a value for {@code control} at the last read. */
  boolean fleetHas(String control) {
    return switch (control) {
      case Controls.MODE -> sharedMode != null;
      case Controls.ANNOUNCEMENT -> sharedAnnouncement != null;
      default -> sharedRate != null;
    };
  }

  void setMode(RoomMode next) {
    share(Controls.MODE, next.name());
    mode = next;
  }

  void setAnnouncement(String a) {
    share(Controls.ANNOUNCEMENT, a);
    announcement = a;
  }

  void setAdmissionRate(double perSecond) {
    share(Controls.RATE, Double.toString(perSecond));
    admissionRate = perSecond;
  }

  /**
   * Adopts what changed in {@code s}; returns whether the mode or the rate changed, so the line's
   * allowance must follow.
   */
  boolean adopt(Controls.Settings s) {
    sharedMode = s.mode();
    sharedAnnouncement = s.announcement();
    sharedRate = s.rate();
    if (s.version() == seen) {
      return false;
    }
    if (s.version() < seen) {
      // The version went back: the store lost the controls (Redis lost the room). This room's
      // settings are the fleet's again, else the next instance to start would seed its own.
      seen = s.version();
      share(Controls.MODE, mode.name());
      share(Controls.ANNOUNCEMENT, announcement);
      share(Controls.RATE, Double.toString(admissionRate));
      return false;
    }
    seen = s.version();
    boolean gate = false;
    RoomMode m = parseMode(s.mode());
    if (m != null && m != mode) {
      LOG.info("room {}: mode {} (set on another instance; was {})", displayName.get(), m, mode);
      mode = m;
      gate = true;
    }
    if (s.announcement() != null) {
      announcement = s.announcement();
    }
    double r = parseRate(s.rate());
    if (r >= 0 && r != admissionRate) {
      admissionRate = r;
      gate = true;
    }
    return gate;
  }

  /** Writes a control for the fleet; while the line is unreachable the setting is this room's. */
  private void share(String control, String value) {
    try {
      long v = controls.write(control, value);
      if (v == seen + 1) {
        seen = v; // nothing else changed meanwhile: this room is in step
      }
    } catch (LineUnavailableException e) {
      LOG.warn(
          "room {}: the line is unreachable; {} applies on this instance only",
          displayName.get(),
          control);
    }
  }

  private static RoomMode parseMode(String name) {
    if (name == null) {
      return null;
    }
    try {
      return RoomMode.valueOf(name);
    } catch (IllegalArgumentException e) {
      return null; // written by a newer version: keep the mode in force
    }
  }

  private static double parseRate(String rate) {
    if (rate == null) {
      return -1;
    }
    try {
      double r = Double.parseDouble(rate);
      return r >= 0 && !Double.isInfinite(r) ? r : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
