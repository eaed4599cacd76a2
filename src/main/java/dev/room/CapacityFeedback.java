package dev.room;

import dev.room.spi.HealthWindow;
import dev.room.spi.Line;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * Feeds a room's {@link CapacityController} the requests that finish and sets the capacity it
 * decides. {@link CapacityController#adaptive} on a line with a {@link HealthWindow} decides from
 * every instance's samples ({@link FleetCapacity}); any other controller decides from this
 * instance's.
 */
final class CapacityFeedback {
  private final Line line;
  private final HealthWindow health; // the fleet's, or null on a line of one room
  private final IntConsumer capacity;
  private final Supplier<String> displayName;
  private final UserCode userCode;
  private volatile CapacityController controller;
  private volatile FleetCapacity fleetCapacity; // the adaptive controller, deciding for the fleet

  /**
   * Feedback for the controller of {@code line}; its decisions go to {@code capacity}, and its
   * failures are counted by {@code userCode}.
   */
  CapacityFeedback(
      Line line, IntConsumer capacity, Supplier<String> displayName, UserCode userCode) {
    this.line = line;
    this.health = line.healthWindow();
    this.capacity = capacity;
    this.displayName = displayName;
    this.userCode = userCode;
  }

  void setController(CapacityController c) {
    fleetCapacity =
        c instanceof AdaptiveCapacity a && health != null ? new FleetCapacity(a, health) : null;
    controller = c;
  }

  CapacityController controller() {
    return controller;
  }

  /**
   * A gated request finished: feeds the capacity controller, if any. A controller that throws
   * changes nothing; it is the application's code, on the path that gives the slot back.
   */
  void finished(long now, long latencyMillis, boolean failed, int inFlight) {
    CapacityController c = controller;
    if (c == null) {
      return;
    }
    FleetCapacity f = fleetCapacity;
    int capacity = line.capacity();
    int wanted;
    try {
      wanted =
          f != null && c == f.controller()
              ? f.onSample(now, latencyMillis, failed, inFlight, capacity)
              : c.onSample(now, latencyMillis, failed, inFlight, capacity);
    } catch (Throwable e) { // user code: anything it throws is caught
      userCode.failed(displayName.get(), "capacity controller", e);
      return;
    }
    if (wanted >= 1 && wanted != capacity) {
      this.capacity.accept(wanted);
    }
  }
}
