package dev.room;

import dev.room.spi.LineJournal;

/** Where the parts beneath the room publish their events; the room's {@link RoomEvents}. */
interface EventSink {
  /** The admission log's journal, for the room's own notes; {@link LineJournal#NONE} without. */
  default LineJournal journal() {
    return LineJournal.NONE;
  }

  void fire(Event e, String token, String clientKey, boolean stale, String detail);

  default void fire(Event e, String token, String clientKey, boolean stale) {
    fire(e, token, clientKey, stale, "");
  }
}
