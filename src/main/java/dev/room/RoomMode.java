package dev.room;

/**
 * How a room admits, switched live with {@link WaitingRoom#setMode}. Every change fires {@link
 * Event#MODE} and shows in the status JSON's {@code state}.
 *
 * <p>Whatever the mode, clients already told they are ready keep their reserved slot and are let in
 * when they come back, and requests already running finish.
 */
public enum RoomMode {
  /** Normal admission: capacity and the admission rate decide. */
  OPEN,
  /**
   * Everyone queues and nobody is admitted: no fast path, no slot handed over. For the time before
   * a sale opens. Visitors see their place ({@code state: "waiting"}).
   */
  QUEUE_ALL,
  /**
   * Admission stops and everyone keeps their place; new arrivals queue behind. The page says so in
   * plain words ({@code state: "paused"}) and shows no wait estimate.
   */
  PAUSED,
  /**
   * The gate is off: every request goes straight to the application, without a slot, and waiting
   * visitors are let in. Loud on purpose: status says {@code state: "passthrough"}, each switch to
   * it logs a WARN, and metrics show it.
   */
  PASSTHROUGH,
  /**
   * Sold out or ended: nobody new is admitted or queued. New visitors get a closed page (503);
   * visitors in line are told directly ({@code state: "closed"} and a message) and shown no
   * progress; they keep their place should the room reopen.
   */
  CLOSED;

  /** The status JSON's {@code state} for a visitor waiting in this mode. */
  String state() {
    return switch (this) {
      case OPEN, QUEUE_ALL -> "waiting";
      case PAUSED -> "paused";
      case PASSTHROUGH -> "passthrough";
      case CLOSED -> "closed";
    };
  }
}
