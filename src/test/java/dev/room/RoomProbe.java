package dev.room;

/** Reaches a room's package-private request hooks from tests in other packages. */
public final class RoomProbe {
  private RoomProbe() {}

  /** A gated request that started at {@code startedAt} finished now, as the filter reports it. */
  public static void sampled(WaitingRoom room, long startedAt, boolean failed) {
    room.sampled(startedAt, failed);
  }
}
