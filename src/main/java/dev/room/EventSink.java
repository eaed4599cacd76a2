package dev.room;

/** Where the parts beneath the room publish their events; the room's {@link RoomEvents}. */
interface EventSink {
  void fire(Event e, String token, String clientKey, boolean stale, String detail);

  default void fire(Event e, String token, String clientKey, boolean stale) {
    fire(e, token, clientKey, stale, "");
  }
}
