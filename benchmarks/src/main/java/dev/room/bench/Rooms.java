package dev.room.bench;

import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** Builds public-API rooms over a benchmark line, on a clock frozen at {@link Lines#NOW}. */
final class Rooms {
  private Rooms() {}

  /**
   * A room over {@code line}. The clock never moves, so the reaper never finds anything expired and
   * the line stays exactly as the benchmark built it. Passes last one minute.
   */
  static WaitingRoom over(InMemoryLine line) {
    return WaitingRoom.builder()
        .line(line)
        .clock(InstantSource.fixed(Instant.ofEpochMilli(Lines.NOW)))
        .passDuration(Duration.ofMinutes(1))
        .build();
  }
}
