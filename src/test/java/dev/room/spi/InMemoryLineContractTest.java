package dev.room.spi;

import dev.room.FakeClock;
import dev.room.engine.InMemoryLine;

/** The line contract on the default, in-memory line. */
class InMemoryLineContractTest extends LineContractTest {
  @Override
  protected Line newLine(int capacity, FakeClock clock) {
    return new InMemoryLine(capacity);
  }

  @Override
  protected void checkStorage(Line line) {
    ((InMemoryLine) line).checkInvariants();
  }
}
