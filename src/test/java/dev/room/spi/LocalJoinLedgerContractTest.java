package dev.room.spi;

import dev.room.engine.LocalJoinLedger;

/** The join ledger contract in memory: one process is the whole room. */
class LocalJoinLedgerContractTest extends JoinLedgerContractTest {
  @Override
  protected JoinLedger newLedger() {
    return new LocalJoinLedger();
  }

  @Override
  protected JoinLedger sameRoomElsewhere(JoinLedger ledger) {
    return ledger;
  }
}
