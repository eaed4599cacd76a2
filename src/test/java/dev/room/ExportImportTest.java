package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.spi.Outcome;
import dev.room.spi.Tokens;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Export and import: round trips, refusals, all-or-nothing, and corrupted input. */
class ExportImportTest {
  private final FakeClock clock = new FakeClock();

  private WaitingRoom room(int capacity) {
    return WaitingRoom.builder()
        .capacity(capacity)
        .clock(clock)
        .passDuration(Duration.ofMinutes(60))
        .build();
  }

  private static String queue(WaitingRoom r, String key) {
    long[] t = Tokens.generate();
    String token = Tokens.format(t[0], t[1]);
    assertEquals(Outcome.WAITING, Outcome.kind(r.arrive(t[0], t[1], token, key, false, false)));
    return token;
  }

  /** A line with a held slot, a ready client, ties, ranks and a pass. */
  private WaitingRoom sampleLine(List<String> tokens, String[] pass) {
    WaitingRoom r = room(1);
    r.setRateFunction(d -> java.math.BigDecimal.ONE);
    assertTrue(r.tryEnter());
    for (int i = 0; i < 8; i++) {
      tokens.add(queue(r, "client-" + i));
    }
    r.promoteToken(tokens.get(6), 2); // ties with tokens[1]
    pass[0] = r.promoteToken(tokens.get(7), 1).passToken(); // ties with tokens[0]
    r.setTicketRank(tokens.get(5), 2);
    r.exit(); // the slot goes to tokens[5] (ranked first): it is ready
    for (String t : tokens) {
      r.poll(Tokens.hi(t), Tokens.lo(t), clock.millis());
    }
    return r;
  }

  private static byte[] export(WaitingRoom r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.exportTo(out);
    return out.toByteArray();
  }

  private static List<String> order(WaitingRoom r) {
    List<String> out = new ArrayList<>();
    for (TicketInfo t : r.queue(1000)) {
      out.add(t.token() + "@" + t.position() + "/" + t.rank() + "/" + t.clientKey());
    }
    return out;
  }

  @Test
  void restoredClientsWhoNeverComeBackStallASmallRoom() throws Exception {
    WaitingRoom before = room(1);
    assertTrue(before.tryEnter());
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < 21; i++) {
      tokens.add(queue(before, "client-" + i));
    }
    byte[] file = export(before);
    before.close();
    WaitingRoom after = room(1);
    AtomicInteger timeouts = new AtomicInteger();
    after.on(Event.TIMEOUT, s -> timeouts.incrementAndGet());
    assertEquals(21, after.importFrom(new ByteArrayInputStream(file)).restored());
    String live = tokens.get(20); // the other twenty never come back
    long start = clock.millis();
    long readyAfter = -1;
    for (int s = 1; s <= 300 && readyAfter < 0; s++) {
      clock.advance(Duration.ofSeconds(1));
      if (s % 5 == 0) {
        after.evictExpired();
      }
      if (s % 2 == 1
          && Outcome.kind(after.poll(Tokens.hi(live), Tokens.lo(live), clock.millis()))
              == Outcome.READY) {
        readyAfter = clock.millis() - start;
      }
    }
    assertTrue(
        readyAfter >= 0 && readyAfter <= 35_000,
        "ready after " + readyAfter + " ms with nothing in flight, not within the 30 s window");
    assertEquals(
        1, after.ticket(tokens.get(0)).orElseThrow().position(), "a turn lost, not a place");
    assertTrue(after.events().awaitIdle(5000));
    assertEquals(0, timeouts.get(), "nobody gone was ever told it was ready");
    after.close();
  }

  @Test
  void aRoundTripKeepsOrderTiesRanksKeysAndPasses() throws Exception {
    List<String> tokens = new ArrayList<>();
    String[] pass = new String[1];
    WaitingRoom before = sampleLine(tokens, pass);
    List<String> expected = order(before);
    byte[] file = export(before);
    assertTrue(
        new String(file, StandardCharsets.UTF_8)
            .startsWith("{\"format\":\"dev.room/line\",\"version\":1,"));
    before.close();

    clock.advance(Duration.ofMinutes(4)); // the restart
    try (WaitingRoom after = room(1)) {
      ImportStats stats = after.importFrom(new ByteArrayInputStream(file));
      assertEquals(new ImportStats(8, 0, 2, 0), stats); // two paid promotions, two passes
      assertEquals(expected, order(after));
      assertTrue(after.hasValidPass(pass[0]));
      // Cookies are still valid and re-sent on the first poll.
      clock.advance(Duration.ofSeconds(30));
      String first = tokens.get(5);
      long o = after.poll(Tokens.hi(first), Tokens.lo(first), clock.millis());
      assertEquals(Outcome.READY, Outcome.kind(o), "nothing in flight: the first is ready");
      assertTrue(Outcome.has(o, Outcome.REFRESH_COOKIES));
      String second = tokens.get(0);
      long p = after.poll(Tokens.hi(second), Tokens.lo(second), clock.millis());
      assertEquals(1, Outcome.position(p));
      assertTrue(Outcome.has(p, Outcome.REFRESH_COOKIES));
      long again = after.poll(Tokens.hi(second), Tokens.lo(second), clock.millis() + 2000);
      assertFalse(Outcome.has(again, Outcome.REFRESH_COOKIES), "once");
      // The downtime was not charged: 8.5 minutes since its last poll, yet alive (TTL 5 min).
      clock.advance(Duration.ofMinutes(4));
      String quiet = tokens.get(3);
      long q = after.poll(Tokens.hi(quiet), Tokens.lo(quiet), clock.millis());
      assertEquals(Outcome.WAITING, Outcome.kind(q));
      assertThrows(
          IllegalStateException.class,
          () -> after.importFrom(new ByteArrayInputStream(file)),
          "a second import is refused");
    }
  }

  @Test
  void aLargerRoomCallsMoreClientsAtOnce() throws Exception {
    List<String> tokens = new ArrayList<>();
    WaitingRoom before = sampleLine(tokens, new String[1]);
    byte[] file = export(before);
    before.close();
    try (WaitingRoom after = room(4)) {
      after.importFrom(new ByteArrayInputStream(file));
      assertEquals(4, after.liveQueueDepth() - after.queueDepth());
    }
  }

  @Test
  void staleTicketsAndExpiredPassesAreDroppedAndCounted() throws Exception {
    WaitingRoom before = room(1);
    assertTrue(before.tryEnter());
    String old = queue(before, "old");
    String pass = before.grantPass();
    clock.advance(Duration.ofMinutes(4));
    String fresh = queue(before, "fresh");
    clock.advance(Duration.ofMinutes(2)); // old is now past its TTL, fresh is not
    byte[] file = export(before);
    before.close();
    clock.advance(Duration.ofMinutes(55)); // the pass has expired by the time we import
    try (WaitingRoom after = room(1)) {
      ImportStats stats = after.importFrom(new ByteArrayInputStream(file));
      assertEquals(new ImportStats(1, 1, 0, 1), stats);
      assertTrue(after.ticket(fresh).isPresent());
      assertFalse(after.ticket(old).isPresent());
      assertFalse(after.hasValidPass(pass));
    }
  }

  @Test
  void aRoomThatServedTrafficRefusesAnImport() throws Exception {
    byte[] file = export(sampleLine(new ArrayList<>(), new String[1]));
    try (WaitingRoom used = room(1)) {
      assertTrue(used.tryEnter());
      used.exit();
      assertThrows(
          IllegalStateException.class, () -> used.importFrom(new ByteArrayInputStream(file)));
    }
  }

  @Test
  void theHolderOfAPlaceIsMarkedInTheExportOnlyWhenItsOrderDiffersFromItsPlace() throws Exception {
    WaitingRoom r = room(1);
    assertTrue(r.tryEnter());
    String a = queue(r, "a");
    String b = queue(r, "b");
    String c = queue(r, "c");
    String plain = new String(export(r), StandardCharsets.UTF_8);
    assertFalse(plain.contains("arrival"), "no tie: the file reads as it always did");
    r.adminPromote(c, 1); // a holds place 1 behind c, with a fresher order
    String tied = new String(export(r), StandardCharsets.UTF_8);
    assertEquals(1, tied.split("\"arrival\":", -1).length - 1, "only a is marked");
    assertTrue(tied.contains("\"client_key\":\"a\",\"arrival\":1}"), tied);
    try (WaitingRoom copy = room(1)) {
      copy.importFrom(new ByteArrayInputStream(tied.getBytes(StandardCharsets.UTF_8)));
      copy.adminPromote(b, 1);
      List<String> keys = new ArrayList<>();
      for (TicketInfo t : copy.queue(10)) {
        keys.add(t.clientKey());
      }
      assertEquals(List.of("c", "b", "a"), keys, "a still holds its place behind the payers");
    }
    r.close();
  }

  @Test
  void theGoldenVersionOneFileStillImports() throws Exception {
    try (InputStream in = getClass().getResourceAsStream("export-v1.json");
        WaitingRoom r = room(1)) {
      clock.advance(Duration.ZERO);
      ImportStats stats = r.importFrom(in);
      assertEquals(3, stats.restored());
      List<TicketInfo> q = r.queue(10);
      assertEquals("00000000000000000000000000000003", q.get(0).token());
      assertEquals(0, q.get(0).position());
      assertEquals("00000000000000000000000000000001", q.get(1).token());
      assertEquals(1, q.get(1).position());
      assertEquals(1, q.get(2).position(), "tied");
      assertEquals("10.0.0.2", q.get(2).clientKey());
      assertEquals(4, q.get(2).rank());
    }
  }

  @Test
  void theVersion2GoldenFileImportsWithItsDrawWhichIsNeverRunAgain() throws Exception {
    try (InputStream in = getClass().getResourceAsStream("export-v2.json");
        WaitingRoom r = room(1)) {
      r.schedulePresale(clock.instant().plusSeconds(60)); // replaced by the file's drawn pre-sale
      assertEquals(6, r.importFrom(in).restored());
      assertEquals(
          "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
          r.presaleSeed().orElseThrow());
      assertEquals(
          "ae216c2ef5247a3782c135efa279a3e4cdc61094270f5d2be58c6204b7a612c9", r.presaleSeedHash());
      List<String> order = new ArrayList<>();
      for (TicketInfo t : r.queue(10)) {
        order.add(t.token().substring(30));
      }
      assertEquals(List.of("a4", "a3", "a2", "a1", "a5", "b6"), order);
      assertEquals(0, r.queue(1).get(0).position(), "drawn already: admission runs at once");
    }
  }

  @Test
  void aMalformedPresaleIsAFormatErrorAndLeavesTheRoomAsItWas() throws Exception {
    String golden;
    try (InputStream in = getClass().getResourceAsStream("export-v2.json")) {
      golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<String> bad =
        List.of(
            golden.replace("0102030405060708090a0b0c0d0e0f10", "01"),
            golden.replace("\"drawn\":true", "\"drawn\":false"),
            golden.replace("\"group\":5", "\"group\":-1"),
            golden.replaceAll("\"presale\":\\{[^}]*\\},", ""),
            golden.replace("\"version\":2", "\"version\":1"),
            golden.substring(0, golden.length() - 40));
    for (String file : bad) {
      try (WaitingRoom r = room(1)) {
        assertThrows(
            ImportFormatException.class,
            () -> r.importFrom(new ByteArrayInputStream(file.getBytes(StandardCharsets.UTF_8))),
            file);
        assertEquals("", r.presaleSeedHash());
        assertEquals(0, r.liveQueueDepth());
        assertTrue(r.tryEnter(), "not held, not used: the room is as it was");
      }
    }
  }

  /** Regression: a line restored with ready clients exported a band the format refuses. */
  @Test
  void aLineRestoredWithReadyClientsExportsAndImportsAgain() throws Exception {
    List<String> tokens = new ArrayList<>();
    WaitingRoom first = sampleLine(tokens, new String[1]);
    byte[] file = export(first);
    first.close();
    try (WaitingRoom second = room(1)) {
      second.importFrom(new ByteArrayInputStream(file));
      List<String> expected = order(second);
      byte[] again = export(second);
      try (WaitingRoom third = room(1)) {
        third.importFrom(new ByteArrayInputStream(again));
        assertEquals(expected, order(third));
      }
    }
  }

  @Test
  void unknownVersionsAndForeignFilesAreFormatErrors() {
    for (String bad :
        List.of(
            "",
            "[]",
            "{}",
            "{\"format\":\"dev.room/line\",\"version\":3}",
            "{\"format\":\"something/else\",\"version\":1}",
            "not json at all")) {
      try (WaitingRoom r = room(1)) {
        assertThrows(
            ImportFormatException.class,
            () -> r.importFrom(new ByteArrayInputStream(bad.getBytes(StandardCharsets.UTF_8))),
            bad);
        assertEquals(0, r.liveQueueDepth());
      }
    }
  }

  /** Truncation at every byte of a small export: a format error, and the room left unchanged. */
  @Test
  void truncationAtEveryByteIsRefusedAllOrNothing() throws Exception {
    byte[] file = export(sampleLine(new ArrayList<>(), new String[1]));
    for (int len = 0; len < file.length; len++) {
      try (WaitingRoom r = room(1)) {
        byte[] cut = Arrays.copyOf(file, len);
        assertThrows(
            ImportFormatException.class,
            () -> r.importFrom(new ByteArrayInputStream(cut)),
            "cut at " + len);
        assertEquals(0, r.liveQueueDepth(), "nothing restored from a cut at " + len);
        assertEquals(
            8,
            r.importFrom(new ByteArrayInputStream(file)).restored(),
            "the room is still importable after a refused file");
      }
    }
  }

  /** Random byte flips: either a format error (room untouched) or a consistent import. */
  @Test
  void corruptedExportsNeverYieldAnythingButAnErrorOrAConsistentLine() throws Exception {
    byte[] file = export(sampleLine(new ArrayList<>(), new String[1]));
    Random rnd = new Random(20261129);
    String alphabet = "0123456789abcdef\"{}[],:-ntrufalse ";
    int imported = 0;
    for (int i = 0; i < 1500; i++) {
      byte[] bad = file.clone();
      for (int flips = 1 + rnd.nextInt(3); flips > 0; flips--) {
        bad[rnd.nextInt(bad.length)] = (byte) alphabet.charAt(rnd.nextInt(alphabet.length()));
      }
      try (WaitingRoom r = room(1)) {
        try {
          ImportStats s = r.importFrom(new ByteArrayInputStream(bad));
          imported++;
          List<TicketInfo> q = r.queue(100);
          assertEquals(s.restored(), q.size());
          assertEquals(r.liveQueueDepth(), q.size());
          long previous = 0;
          for (TicketInfo t : q) {
            assertTrue(t.position() >= previous && t.position() <= previous + 1, "gap-free");
            previous = Math.max(previous, t.position());
          }
        } catch (ImportFormatException e) {
          assertEquals(0, r.liveQueueDepth());
        }
      }
    }
    assertTrue(imported > 0, "some flips hit values that are still valid");
  }
}
