package dev.room.redis;

import dev.room.spi.JoinLedger;
import dev.room.spi.JoinLedgerContractTest;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The join ledger contract on a real Redis, each "instance" a line of its own connected to the same
 * room: the fleet shares limits, spent challenges and the secret.
 */
class RedisJoinLedgerContractTest extends JoinLedgerContractTest {
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();
  private final List<RedisLine> lines = new ArrayList<>();
  private final Map<JoinLedger, String> rooms = new IdentityHashMap<>();

  @Override
  @AfterEach
  protected void closeLedgers() {
    lines.forEach(RedisLine::close);
  }

  private JoinLedger open(String room) {
    RedisLine line = RedisLine.builder(redis.uri(), room).clock(clock).build();
    lines.add(line);
    JoinLedger ledger = line.joinLedger();
    rooms.put(ledger, room);
    return ledger;
  }

  @Override
  protected JoinLedger newLedger() {
    return open("guard-" + UUID.randomUUID());
  }

  @Override
  protected JoinLedger sameRoomElsewhere(JoinLedger ledger) {
    return open(rooms.get(ledger));
  }
}
