package dev.room.engine;

import dev.room.spi.PresaleStoreContractTest;

/** The pre-sale store's contract on the one a room keeps itself, over an in-memory line. */
class LocalPresaleStoreContractTest extends PresaleStoreContractTest {
  @Override
  protected Handle open() {
    InMemoryLine line = new InMemoryLine(1);
    line.setAllowance(0, clock.millis());
    return new Handle(line, new LocalPresaleStore(line));
  }

  @Override
  protected Handle sameStore(Handle h) {
    return h;
  }
}
