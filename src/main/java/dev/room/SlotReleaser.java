package dev.room;

/**
 * Gives one held slot back (with its DRAIN edge); what a session needs of the room when it ends.
 */
@FunctionalInterface
interface SlotReleaser {
  void exitSlot();
}
