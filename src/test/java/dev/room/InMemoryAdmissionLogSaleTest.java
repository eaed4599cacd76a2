package dev.room;

import dev.room.engine.InMemoryLine;
import dev.room.spi.LedgerLine;
import dev.room.spi.Line;

/** The recorded sale on the in-memory line: an exact log. */
class InMemoryAdmissionLogSaleTest extends AdmissionLogSaleTest {
  @Override
  protected Line newLine(int capacity, FakeClock clock) {
    return new LedgerLine(new InMemoryLine(capacity));
  }

  @Override
  protected boolean exact() {
    return true;
  }
}
