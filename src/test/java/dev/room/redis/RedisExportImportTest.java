package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.ImportFormatException;
import dev.room.ImportStats;
import dev.room.TicketInfo;
import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Export and import through the room's API with the line in Redis, in both directions. */
class RedisExportImportTest {
  private final FakeClock clock = new FakeClock();
  private final List<WaitingRoom> rooms = new ArrayList<>();
  private final Map<WaitingRoom, Line> lines = new HashMap<>();
  private RedisServer redis;

  @BeforeEach
  void startRedis() throws IOException {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    rooms.forEach(WaitingRoom::close);
    redis.close();
  }

  private WaitingRoom redisRoom(int capacity) {
    RedisLine line =
        RedisLine.builder(redis.uri(), "io-" + UUID.randomUUID())
            .clock(clock)
            .manualHeartbeat()
            .build();
    return room(capacity, line);
  }

  private WaitingRoom memoryRoom(int capacity) {
    return room(capacity, new InMemoryLine(capacity));
  }

  private WaitingRoom room(int capacity, Line line) {
    WaitingRoom r =
        WaitingRoom.builder()
            .capacity(capacity)
            .clock(clock)
            .line(line)
            .passDuration(Duration.ofHours(1))
            .build();
    rooms.add(r);
    lines.put(r, line);
    return r;
  }

  /** Fills the room's one slot and queues {@code n} clients straight on its line. */
  private List<String> queue(WaitingRoom room, Line line, int n) {
    Policy p = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);
    assertTrue(line.tryEnter());
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long[] t = Tokens.generate();
      long o = line.arrive(t[0], t[1], "client-" + i, false, clock.millis(), p);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      tokens.add(Tokens.format(t[0], t[1]));
    }
    room.adminPromote(tokens.get(n - 1), 2);
    room.setTicketRank(tokens.get(n - 2), 4);
    return tokens;
  }

  private static List<String> view(WaitingRoom r) {
    List<String> out = new ArrayList<>();
    for (TicketInfo t : r.queue(1000)) {
      out.add(t.token() + "@" + t.position() + ":" + t.clientKey() + ":" + t.rank());
    }
    return out;
  }

  private static byte[] export(WaitingRoom r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.exportTo(out);
    return out.toByteArray();
  }

  @Test
  void aRedisLineExportsAndImportsWithOrderTiesAndRanks() throws Exception {
    WaitingRoom before = redisRoom(1);
    queue(before, lineOf(before), 12);
    String pass = before.grantPass();
    byte[] file = export(before);

    WaitingRoom after = redisRoom(1);
    ImportStats stats = after.importFrom(new ByteArrayInputStream(file));
    assertEquals(new ImportStats(12, 0, 1, 0), stats);
    List<TicketInfo> was = before.queue(1000);
    List<TicketInfo> is = after.queue(1000);
    assertEquals(was.size(), is.size());
    assertEquals(0, is.get(0).position(), "nothing in flight after an import: the first is ready");
    for (int i = 0; i < was.size(); i++) {
      assertEquals(was.get(i).token(), is.get(i).token(), "same order");
      assertEquals(was.get(i).clientKey(), is.get(i).clientKey());
      assertEquals(was.get(i).rank(), is.get(i).rank());
      if (i > 0) {
        assertEquals(was.get(i).position() - 1, is.get(i).position(), "ties kept");
      }
    }
    assertTrue(after.hasValidPass(pass));
    assertThrows(
        IllegalStateException.class, () -> after.importFrom(new ByteArrayInputStream(file)));
  }

  @Test
  void theFormatIsTheSameInMemoryAndInRedis() throws Exception {
    WaitingRoom memory = memoryRoom(1);
    queue(memory, lineOf(memory), 8);
    WaitingRoom redisCopy = redisRoom(1);
    redisCopy.importFrom(new ByteArrayInputStream(export(memory)));
    WaitingRoom memoryCopy = memoryRoom(1);
    memoryCopy.importFrom(new ByteArrayInputStream(export(redisCopy)));
    assertEquals(view(redisCopy), view(memoryCopy));
  }

  @Test
  void aTruncatedFileLeavesTheRedisLineUntouched() throws Exception {
    WaitingRoom before = redisRoom(1);
    queue(before, lineOf(before), 5);
    byte[] file = export(before);
    WaitingRoom after = redisRoom(1);
    assertThrows(
        ImportFormatException.class,
        () -> after.importFrom(new ByteArrayInputStream(Arrays.copyOf(file, file.length / 2))));
    assertEquals(0, after.liveQueueDepth());
    assertEquals(5, after.importFrom(new ByteArrayInputStream(file)).restored());
    assertFalse(after.queue(10).isEmpty());
  }

  private Line lineOf(WaitingRoom r) {
    return lines.get(r);
  }
}
