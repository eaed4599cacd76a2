package dev.room;

import dev.room.spi.Controls;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.PresaleStore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a sale in step with its fleet: adopts the settings ({@link FleetControls}) and the pre-sale
 * ({@link Lottery}) changed on other instances, and puts the admission hold in step with them. The
 * request path reads the line at most once every {@value #SYNC_MILLIS} ms, and takes the sale's
 * monitor only when something changed.
 */
final class FleetSync {
  static final long SYNC_MILLIS = 1000;

  private final FleetControls settings;
  private final Lottery lottery;
  private final AdmissionHold hold;
  private final AtomicLong nextSync = new AtomicLong(Long.MIN_VALUE);

  FleetSync(FleetControls settings, Lottery lottery, AdmissionHold hold) {
    this.settings = settings;
    this.lottery = lottery;
    this.hold = hold;
  }

  /** Whether a sync is due at {@code now}; true for one caller a period. */
  boolean due(long now) {
    long due = nextSync.get();
    return now >= due && nextSync.compareAndSet(due, now + SYNC_MILLIS);
  }

  /**
   * Whether another instance changed the settings or the pre-sale; one read of each. The caller
   * then {@linkplain #adopt adopts} under the sale's monitor, reading again: a setter on this room
   * may have written since this read, and adopting the older read would undo it.
   */
  boolean behind() {
    Controls.Settings s;
    try {
      s = settings.read();
    } catch (LineUnavailableException e) {
      return false; // the settings in force stay; the next sync reads again
    }
    PresaleStore.State p;
    try {
      p = lottery.read();
    } catch (LineUnavailableException e) {
      p = null;
    }
    return settings.changed(s) || (p != null && lottery.changed(p));
  }

  /**
   * Reads the controls and the pre-sale and adopts what changed; caller holds the sale's monitor.
   * Returns whether the controls could be read (false while the line is unreachable).
   */
  boolean adopt(long now) {
    try {
      if (settings.adopt(settings.read())) {
        hold.apply(now);
      }
    } catch (LineUnavailableException e) {
      return false;
    }
    try {
      if (lottery.adopt(lottery.read())) {
        hold.apply(now);
      }
    } catch (LineUnavailableException e) {
      // the pre-sale in force stays; the next sync reads again
    }
    return true;
  }
}
