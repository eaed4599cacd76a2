package dev.room;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;

/** The room's random walk on the in-memory line. */
class InMemoryRoomStressTest extends RoomStressTest {
  @Override
  protected Line newLine(int capacity, FakeClock clock) {
    return new InMemoryLine(capacity);
  }

  @Override
  protected void checkStorage(Line line) {
    ((InMemoryLine) line).checkInvariants();
  }

  @Override
  protected int seeds() {
    return 30;
  }

  @Override
  protected int steps() {
    return 3000;
  }
}
