package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

/**
 * Every key a script receives is in one Redis Cluster slot (a script may touch only one), the
 * restore's staging keys included; different rooms get different slots.
 */
class RoomKeysSlotTest {
  @Test
  void aRoomsKeysShareOneSlot() {
    RoomKeys keys = new RoomKeys("sale-2026");
    int slot = SlotHash.getSlot("{room:sale-2026}");
    for (String k : keys.withStaging("n0nce")) {
      assertEquals(slot, SlotHash.getSlot(k), k);
    }
  }

  @Test
  void roomsSpreadOverSlots() {
    java.util.Set<Integer> slots = new java.util.HashSet<>();
    for (int i = 0; i < 100; i++) {
      slots.add(SlotHash.getSlot(new RoomKeys("room-" + i).all()[0]));
    }
    assertTrue(slots.size() > 90, "100 rooms on " + slots.size() + " slots");
  }
}
