package dev.room.engine;

import dev.room.spi.FleetSettings;
import dev.room.spi.FleetSettingsContractTest;

/** The fleet settings' contract on the ones a room keeps itself. */
class LocalFleetSettingsContractTest extends FleetSettingsContractTest {
  @Override
  protected FleetSettings newStore() {
    return new LocalFleetSettings();
  }

  @Override
  protected FleetSettings sameStore(FleetSettings s) {
    return s;
  }
}
