package dev.room.spring;

import dev.room.WaitingRoom;

/**
 * Adds what properties cannot say (a rate function, a client-key function, a capacity controller)
 * to the auto-configured room. Beans of this type run in order, after the {@code room.*} properties
 * were applied.
 */
@FunctionalInterface
public interface WaitingRoomCustomizer {
  /** Changes the builder before the room is built. */
  void customize(WaitingRoom.Builder builder);
}
