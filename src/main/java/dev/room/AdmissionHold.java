package dev.room;

import dev.room.engine.AdmissionMeter;
import dev.room.engine.AdmissionPacer;
import dev.room.spi.Line;

/**
 * Whether a sale holds admission, and the line's allowance and the admission meter kept in step
 * with it. Admission is <em>held</em> unless the mode is {@link RoomMode#OPEN} and no pre-sale
 * waits for its draw. Holding is the line's allowance at 0, set by the {@link AdmissionPacer}, so
 * the line itself refuses every hand-over and fast-path entry: no race with a request already past
 * the room's checks can admit anyone.
 *
 * <p>Implementation notes. {@link #apply} is called under the {@link Sale}'s monitor. Lock order:
 * the sale's monitor, the pacer's, the line's lock.
 */
final class AdmissionHold {
  private final AdmissionPacer pacer;
  private final AdmissionMeter meter = new AdmissionMeter(30_000);
  private final FleetControls settings;
  private final Lottery lottery;

  AdmissionHold(Line line, FleetControls settings, Lottery lottery) {
    this.pacer = new AdmissionPacer(line);
    this.settings = settings;
    this.lottery = lottery;
  }

  /** Whether admission is held: any mode but OPEN, or a pre-sale not drawn yet. */
  boolean held() {
    return settings.mode() != RoomMode.OPEN || lottery.pending();
  }

  /** Puts the line's allowance and the meter in step with the settings. */
  void apply(long now) {
    boolean open = !held();
    pacer.configure(open, settings.admissionRate(), now);
    if (open) {
      meter.start(now);
    } else {
      meter.stop(now);
    }
  }

  /** Tops the line's admission rate up; cheap when nothing accrued. */
  void tick(long now) {
    pacer.tick(now);
  }

  /** The admissions measured while admission runs. */
  AdmissionMeter meter() {
    return meter;
  }
}
