package dev.room.engine;

import dev.room.spi.Controls;
import dev.room.spi.ControlsContractTest;

/** The controls' contract on the ones a room keeps itself. */
class LocalControlsContractTest extends ControlsContractTest {
  @Override
  protected Controls newControls() {
    return new LocalControls();
  }

  @Override
  protected Controls sameStore(Controls c) {
    return c;
  }
}
