package dev.room.spi;

import dev.room.FakeClock;
import dev.room.engine.InMemoryLine;
import java.util.Collections;
import java.util.List;

/** The session-store contract in memory: one line, seen as every instance. */
class InMemorySessionStoreContractTest extends SessionStoreContractTest {
  @Override
  protected List<Line> instances(int n, int capacity, FakeClock clock) {
    return Collections.nCopies(n, new InMemoryLine(capacity));
  }

  @Override
  protected void checkStorage(Line line) {
    ((InMemoryLine) line).checkInvariants();
  }
}
