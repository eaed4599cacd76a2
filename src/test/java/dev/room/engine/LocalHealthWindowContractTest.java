package dev.room.engine;

import dev.room.spi.HealthWindow;
import dev.room.spi.HealthWindowContractTest;

/** The health window's contract on the one a room keeps itself. */
class LocalHealthWindowContractTest extends HealthWindowContractTest {
  @Override
  protected HealthWindow newWindow() {
    return new LocalHealthWindow();
  }

  @Override
  protected HealthWindow sameStore(HealthWindow w) {
    return w;
  }
}
