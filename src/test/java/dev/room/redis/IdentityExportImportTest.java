package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.ImportFormatException;
import dev.room.WaitingRoom;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One place per identity survives an export and an import, from either line to either line: the
 * file holds the room's salt and each bound ticket's salted hash (never the identity), and the
 * identity joining again after the import takes over its restored place. The Java and the Lua
 * hashing are one rule, so a file moves between the lines.
 */
class IdentityExportImportTest {
  private static final Policy POLICY = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);

  private final FakeClock clock = new FakeClock();
  private final List<WaitingRoom> rooms = new ArrayList<>();
  private RedisServer redis;

  @BeforeEach
  void startRedis() throws IOException {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    if (redis == null) {
      return; // redis-server is missing: the test was skipped before anything started
    }
    rooms.forEach(WaitingRoom::close);
    redis.close();
  }

  private Line line(String kind) {
    if (kind.equals("memory")) {
      return new InMemoryLine(1);
    }
    return RedisLine.builder(redis.uri(), "id-" + UUID.randomUUID())
        .clock(clock)
        .manualHeartbeat()
        .build();
  }

  private WaitingRoom room(Line line) {
    WaitingRoom r = WaitingRoom.builder().capacity(1).clock(clock).line(line).build();
    rooms.add(r);
    return r;
  }

  private long[] join(Line l, String identity) {
    long[] t = Tokens.generate();
    long o = l.arrive(t[0], t[1], identity, "", false, clock.millis(), POLICY);
    return new long[] {t[0], t[1], o};
  }

  private static byte[] export(WaitingRoom r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.exportTo(out);
    return out.toByteArray();
  }

  @ParameterizedTest
  @CsvSource({"memory,memory", "memory,redis", "redis,memory", "redis,redis"})
  void theBindingSurvivesAnExportAndAnImport(String from, String to) throws Exception {
    Line before = line(from);
    WaitingRoom exporter = room(before);
    assertTrue(before.tryEnter());
    join(before, null);
    long[] phone = join(before, "account-5");
    assertEquals(2, Outcome.position(phone[2]));
    byte[] file = export(exporter);
    String text = new String(file, StandardCharsets.UTF_8);
    assertFalse(text.contains("account-5"), "never the identity itself");
    assertTrue(text.contains("\"identity_salt\":\"" + before.identitySalt() + "\""), text);
    assertTrue(text.matches("(?s).*\"identity\":\"[0-9a-f]{40}\"}.*"), text);

    Line after = line(to);
    WaitingRoom importer = room(after);
    assertEquals(2, importer.importFrom(new ByteArrayInputStream(file)).restored());
    // Written back as read (the first, offered the free slot at the import, now reads ready).
    assertEquals(
        text.replaceFirst("\"ready\":false", "\"ready\":true"),
        new String(export(importer), StandardCharsets.UTF_8));
    long[] laptop = join(after, "account-5");
    assertTrue(Outcome.has(laptop[2], Outcome.REJOINED), "the restored place is taken over");
    assertEquals(1, Outcome.position(laptop[2]), "behind the first, who was offered the slot");
    assertEquals(2, after.live());
    assertEquals(
        Outcome.MOVED, Outcome.kind(after.poll(phone[0], phone[1], clock.millis(), POLICY)));
    before.exit(clock.millis());
  }

  @Test
  void anExportWithoutIdentitiesHasNoIdentityFields() throws Exception {
    Line l = line("memory");
    WaitingRoom r = room(l);
    assertTrue(l.tryEnter());
    join(l, null);
    join(l, " ");
    String text = new String(export(r), StandardCharsets.UTF_8);
    assertFalse(text.contains("identity"), text);
    l.exit(clock.millis());
  }

  @Test
  void aBindingWithoutItsSaltOrAMalformedOneIsRefused() throws Exception {
    Line l = line("memory");
    WaitingRoom r = room(l);
    assertTrue(l.tryEnter());
    join(l, "account-1");
    String text = new String(export(r), StandardCharsets.UTF_8);
    String noSalt = text.replaceAll("\"identity_salt\":\"[0-9a-f]+\",", "");
    String badSalt = text.replaceAll("\"identity_salt\":\"[0-9a-f]+\"", "\"identity_salt\":\"x\"");
    String badHash = text.replaceAll("\"identity\":\"[0-9a-f]+\"", "\"identity\":\"account-1\"");
    for (String bad : List.of(noSalt, badSalt, badHash)) {
      WaitingRoom fresh = room(line("memory"));
      assertThrows(
          ImportFormatException.class,
          () -> fresh.importFrom(new ByteArrayInputStream(bad.getBytes(StandardCharsets.UTF_8))),
          bad);
    }
    l.exit(clock.millis());
  }
}
