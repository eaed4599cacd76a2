package dev.room;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.engine.InMemoryLine;
import dev.room.engine.PresaleDraw;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pre-sale lottery: holding, the draw, its fairness, its audit, and its persistence. */
class PresaleLotteryTest {
  private final FakeClock clock = new FakeClock();
  private final Instant opensAt = clock.instant().plus(Duration.ofMinutes(10));
  private final List<WaitingRoom> rooms = new ArrayList<>();

  private WaitingRoom room(int capacity) {
    // Visitors here do not poll while the clock jumps to the opening: a TTL of an hour keeps them.
    WaitingRoom r =
        WaitingRoom.builder().capacity(capacity).clock(clock).tokenTtl(Duration.ofHours(1)).build();
    rooms.add(r);
    return r;
  }

  @AfterEach
  void close() {
    rooms.forEach(WaitingRoom::close);
  }

  private static List<Visitor> queue(WaitingRoom r, int n) {
    List<Visitor> vs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Visitor v = Visitor.arrive(r);
      assertEquals(Outcome.WAITING, v.arrived());
      vs.add(v);
    }
    return vs;
  }

  private static List<String> line(WaitingRoom r) {
    return r.queue(Integer.MAX_VALUE).stream().map(TicketInfo::token).toList();
  }

  private static byte[] export(WaitingRoom r) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.exportTo(out);
    return out.toByteArray();
  }

  @Test
  void beforeOpeningNobodyIsAdmittedAndNoPlaceIsPromised() {
    WaitingRoom r = room(3);
    assertEquals("", r.presaleSeedHash());
    r.schedulePresale(opensAt);
    assertEquals(opensAt, r.presaleOpensAt().orElseThrow());
    assertTrue(r.presaleSeedHash().matches("[0-9a-f]{64}"));
    assertTrue(r.presaleSeed().isEmpty(), "the seed is secret until the draw");
    assertFalse(r.tryEnter(), "three free slots, but the sale has not opened");
    List<Visitor> vs = queue(r, 5);
    assertEquals(0, r.liveQueueDepth() - 5, "nobody was handed a slot");
    Standing s = r.sale().standing(2, clock.millis());
    assertEquals("waiting", s.state());
    assertFalse(s.showPosition(), "a place before the draw would be a false promise");
    assertEquals(600, s.opensInSeconds());
    assertEquals(Standing.PRESALE_MESSAGE, s.message());
    assertEquals(-1, s.waitLow());
    clock.advance(Duration.ofMinutes(10).minusMillis(1));
    assertFalse(vs.get(0).ready(), "still closed a millisecond before opening");
  }

  @Test
  void atOpeningTheGroupIsDrawnOnceAndLaterArrivalsQueueBehindIt() {
    WaitingRoom r = room(2);
    r.schedulePresale(opensAt);
    List<Visitor> early = queue(r, 20);
    List<String> arrivalOrder = early.stream().map(v -> v.token).toList();
    clock.advance(Duration.ofMinutes(10));
    Visitor late = Visitor.arrive(r); // the first call after opening runs the draw first
    assertEquals(Outcome.WAITING, late.arrived());

    byte[] seed = HexFormat.of().parseHex(r.presaleSeed().orElseThrow());
    assertEquals(r.presaleSeedHash(), PresaleDraw.sha256Hex(seed), "the seed matches its hash");
    List<String> expected = new ArrayList<>();
    for (int i : recompute(seed, 20)) {
      expected.add(arrivalOrder.get(i));
    }
    List<String> drawn = line(r);
    assertEquals(21, drawn.size());
    assertEquals(expected, drawn.subList(0, 20));
    assertNotEquals(arrivalOrder, drawn.subList(0, 20), "20! orders: not the arrival order");
    assertEquals(late.token, drawn.get(20), "a later arrival queues behind the group");
    // Admission starts in the drawn order.
    assertEquals(2, r.liveQueueDepth() - r.queueDepth(), "the first two drawn are ready");
    assertEquals(0, r.ticket(expected.get(0)).orElseThrow().position());
    assertEquals(0, r.ticket(expected.get(1)).orElseThrow().position());

    r.evictExpired(); // another pass by the clock: nothing is drawn twice
    assertEquals(drawn, line(r));
  }

  @Test
  void anyoneCanRecomputeTheDrawFromAnExport() throws Exception {
    WaitingRoom r = room(1);
    assertTrue(r.tryEnter());
    r.schedulePresale(opensAt);
    queue(r, 12);
    clock.advance(Duration.ofMinutes(11));
    queue(r, 3); // after opening
    JsonNode file = new ObjectMapper().readTree(export(r));
    assertEquals(2, file.get("version").asInt());
    JsonNode presale = file.get("presale");
    byte[] seed = HexFormat.of().parseHex(presale.get("seed").asText());
    assertEquals(r.presaleSeedHash(), sha256(seed));
    assertTrue(presale.get("drawn").asBoolean());
    int n = presale.get("group").asInt();
    assertEquals(12, n);
    // The arrivals, as the auditor reads them: band 0, by arrival number (order); the first n.
    List<JsonNode> tickets = new ArrayList<>();
    file.get("tickets").forEach(tickets::add);
    List<JsonNode> arrivals =
        tickets.stream()
            .filter(t -> t.get("band").asInt() == 0)
            .sorted(Comparator.comparingLong(t -> t.get("order").asLong()))
            .limit(n)
            .toList();
    List<String> byPlace =
        arrivals.stream()
            .sorted(Comparator.comparingLong(t -> t.get("place").asLong()))
            .map(t -> t.get("token").asText())
            .toList();
    int[] order = recompute(seed, n);
    List<String> expected = new ArrayList<>();
    for (int i : order) {
      expected.add(arrivals.get(i).get("token").asText());
    }
    assertEquals(expected, byPlace, "the draw, recomputed from the seed and the arrivals");
  }

  @Test
  void aClientTiedIntoADrawnPlaceStaysAheadOfWhoeverDrawsItAndTheDrawCanStillBeRecomputed()
      throws Exception {
    WaitingRoom r = room(1);
    assertTrue(r.tryEnter());
    r.schedulePresale(opensAt);
    List<Visitor> vs = queue(r, 6);
    r.adminPromote(vs.get(5).token, 2); // ties into the place of the second arrival
    clock.advance(Duration.ofMinutes(11));
    r.evictExpired(); // the draw
    List<TicketInfo> q = r.queue(Integer.MAX_VALUE);
    int tied = q.stream().map(TicketInfo::token).toList().indexOf(vs.get(5).token);
    assertEquals(q.get(tied).position(), q.get(tied + 1).position(), "still tied");
    assertTrue(
        tied == 0 || q.get(tied - 1).position() < q.get(tied).position(),
        "ahead of whoever drew the place");
    // The auditor's procedure: band-0 holders of their place, by arrival number, the first n.
    JsonNode file = new ObjectMapper().readTree(export(r));
    byte[] seed = HexFormat.of().parseHex(file.get("presale").get("seed").asText());
    int n = file.get("presale").get("group").asInt();
    assertEquals(5, n);
    List<JsonNode> tickets = new ArrayList<>();
    file.get("tickets").forEach(tickets::add);
    List<JsonNode> arrivals =
        tickets.stream()
            .filter(t -> t.get("band").asInt() == 0)
            .filter(t -> t.has("arrival") || t.get("order").asLong() == t.get("place").asLong())
            .sorted(
                Comparator.comparingLong(
                    t -> (t.has("arrival") ? t.get("arrival") : t.get("order")).asLong()))
            .limit(n)
            .toList();
    List<String> byPlace =
        arrivals.stream()
            .sorted(Comparator.comparingLong(t -> t.get("place").asLong()))
            .map(t -> t.get("token").asText())
            .toList();
    List<String> expected = new ArrayList<>();
    for (int i : recompute(seed, n)) {
      expected.add(arrivals.get(i).get("token").asText());
    }
    assertEquals(expected, byPlace, "the draw, recomputed from the seed and the arrivals");
    assertFalse(byPlace.contains(vs.get(5).token), "the promoted client is not in the draw");
  }

  /** The documented procedure, run in Python, gives this order for seed 01 02 … 20 and five. */
  @Test
  void theDrawMatchesAPythonRecomputationOfTheDocumentedProcedure() {
    byte[] seed = new byte[32];
    for (int i = 0; i < 32; i++) {
      seed[i] = (byte) (i + 1);
    }
    assertArrayEquals(new int[] {3, 2, 1, 0, 4}, PresaleDraw.order(seed, 5));
    assertArrayEquals(new int[] {3, 2, 1, 0, 4}, recompute(seed, 5));
  }

  @Test
  void theEngineDrawAgreesWithTheIndependentRecomputation() {
    for (int n = 0; n <= 50; n++) {
      byte[] seed = sha256Bytes(("seed " + n).getBytes(StandardCharsets.UTF_8));
      assertArrayEquals(recompute(seed, n), PresaleDraw.order(seed, n), "n = " + n);
    }
  }

  /** Fairness over many seeded draws: every arrival equally likely at every place. */
  @Test
  void everyArrivalIsEquallyLikelyAtEveryPlace() {
    int n = 6;
    int draws = 60_000;
    long[][] count = new long[n][n];
    for (int d = 0; d < draws; d++) {
      byte[] seed = sha256Bytes(("fairness " + d).getBytes(StandardCharsets.UTF_8));
      int[] order = PresaleDraw.order(seed, n);
      for (int place = 0; place < n; place++) {
        count[order[place]][place]++;
      }
    }
    double expected = (double) draws / n;
    double chi2 = 0;
    for (long[] row : count) {
      for (long c : row) {
        chi2 += (c - expected) * (c - expected) / expected;
        assertTrue(Math.abs(c - expected) < 0.05 * expected, "cell " + c + " vs " + expected);
      }
    }
    // 25 degrees of freedom: the 1-in-a-million critical value is about 73.
    assertTrue(chi2 < 73, "chi-square " + chi2);
  }

  /** The same through the line's draw with real SecureRandom seeds, as the room runs it. */
  @Test
  void drawsWithFreshSeedsPlaceEveryArrivalFirstEquallyOften() {
    int n = 4;
    int draws = 2000;
    long[] first = new long[n];
    Policy policy = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);
    for (int d = 0; d < draws; d++) {
      InMemoryLine line = new InMemoryLine(1);
      assertTrue(line.tryEnter());
      for (int i = 0; i < n; i++) {
        line.arrive(0, i + 1, "", false, 0, policy);
      }
      byte[] seed = PresaleDraw.newSeed();
      line.drawPresale(size -> PresaleDraw.order(seed, size), 0);
      String head = line.queue(1).get(0).token();
      first[(int) Tokens.lo(head) - 1]++;
    }
    for (long c : first) {
      // Binomial(2000, 1/4): mean 500, sd about 19; six standard deviations either side.
      assertTrue(Math.abs(c - 500) < 6 * 19.4, "placed first " + c + " times of " + draws);
    }
  }

  @Test
  void theDrawSurvivesExportAndImportAndIsNeverRedrawn() throws Exception {
    WaitingRoom before = room(1);
    before.schedulePresale(opensAt);
    queue(before, 30);
    clock.advance(Duration.ofMinutes(10));
    before.evictExpired(); // a reaper pass after opening runs the draw
    String seed = before.presaleSeed().orElseThrow();
    List<String> drawn = line(before);
    byte[] file = export(before);

    clock.advance(Duration.ofMinutes(2)); // the restart
    WaitingRoom after = room(1);
    after.schedulePresale(opensAt.plusSeconds(3600)); // a start-up script, before its import
    after.importFrom(new ByteArrayInputStream(file));
    assertEquals(seed, after.presaleSeed().orElseThrow(), "the file's draw replaces the schedule");
    assertEquals(opensAt, after.presaleOpensAt().orElseThrow());
    assertEquals(drawn, line(after), "the same order, not a second draw");
    after.schedulePresale(opensAt); // scheduling the same opening again is a no-op
    assertEquals(drawn, line(after));
    assertThrows(IllegalStateException.class, () -> after.schedulePresale(opensAt.plusSeconds(60)));
    assertThrows(IllegalStateException.class, () -> after.schedulePresale(null));
    byte[] again = export(after);
    WaitingRoom third = room(1);
    third.importFrom(new ByteArrayInputStream(again));
    assertEquals(drawn, line(third), "stable across any number of restarts");
  }

  @Test
  void aPendingPresaleKeepsItsSeedAcrossARestartAndDrawsAtOpening() throws Exception {
    WaitingRoom before = room(2);
    before.schedulePresale(opensAt);
    String hash = before.presaleSeedHash();
    List<String> arrivals = queue(before, 8).stream().map(v -> v.token).toList();
    byte[] file = export(before);
    assertTrue(new String(file, StandardCharsets.UTF_8).contains("\"version\":2"));

    WaitingRoom after = room(2);
    after.importFrom(new ByteArrayInputStream(file));
    assertEquals(hash, after.presaleSeedHash(), "the published hash still holds");
    assertEquals(0, after.liveQueueDepth() - after.queueDepth(), "held: nobody is ready yet");
    assertEquals(arrivals, line(after));
    clock.advance(Duration.ofMinutes(10));
    after.evictExpired();
    byte[] seed = HexFormat.of().parseHex(after.presaleSeed().orElseThrow());
    assertEquals(hash, sha256(seed));
    List<String> expected = new ArrayList<>();
    for (int i : recompute(seed, 8)) {
      expected.add(arrivals.get(i));
    }
    assertEquals(expected, line(after));
  }

  @Test
  void anImportAfterTheOpeningDrawsAtOnceWithTheImportedSeed() throws Exception {
    WaitingRoom before = room(1);
    before.schedulePresale(opensAt);
    String hash = before.presaleSeedHash();
    List<String> arrivals = queue(before, 5).stream().map(v -> v.token).toList();
    byte[] file = export(before);
    clock.advance(Duration.ofMinutes(12)); // down across the opening
    WaitingRoom after = room(1);
    after.importFrom(new ByteArrayInputStream(file));
    byte[] seed = HexFormat.of().parseHex(after.presaleSeed().orElseThrow());
    assertEquals(hash, sha256(seed));
    List<String> expected = new ArrayList<>();
    for (int i : recompute(seed, 5)) {
      expected.add(arrivals.get(i));
    }
    assertEquals(expected, line(after));
    String first = expected.get(0);
    assertEquals(
        Outcome.READY,
        Outcome.kind(after.poll(Tokens.hi(first), Tokens.lo(first), clock.millis())),
        "and admission runs: restored clients are away until they poll, the first drawn is ready"
            + " on its first poll");
  }

  @Test
  void schedulingRules() {
    WaitingRoom r = room(1);
    assertThrows(IllegalArgumentException.class, () -> r.schedulePresale(clock.instant()));
    r.schedulePresale(opensAt);
    String hash = r.presaleSeedHash();
    r.schedulePresale(opensAt.plusSeconds(60));
    assertEquals(hash, r.presaleSeedHash(), "moving the opening keeps the committed seed");
    assertEquals(opensAt.plusSeconds(60), r.presaleOpensAt().orElseThrow());
    r.schedulePresale(null);
    assertTrue(r.presaleOpensAt().isEmpty());
    assertEquals("", r.presaleSeedHash());
    assertTrue(r.tryEnter(), "cancelled: the room admits again");
    r.exit();
  }

  // ── An independent implementation of the published procedure ──────────

  /** Fisher–Yates driven by SHA-256(seed || counter), written from the Javadoc, with BigInteger. */
  static int[] recompute(byte[] seed, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    BigInteger twoTo63 = BigInteger.ONE.shiftLeft(63);
    long counter = 0;
    for (int i = n - 1; i >= 1; i--) {
      BigInteger bound = BigInteger.valueOf(i + 1);
      BigInteger limit = twoTo63.divide(bound).multiply(bound);
      int j;
      while (true) {
        byte[] input = ByteBuffer.allocate(seed.length + 8).put(seed).putLong(counter++).array();
        byte[] digest = sha256Bytes(input);
        BigInteger x = new BigInteger(1, java.util.Arrays.copyOf(digest, 8)).shiftRight(1);
        if (x.compareTo(limit) < 0) {
          j = x.mod(bound).intValue();
          break;
        }
      }
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }

  static byte[] sha256Bytes(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static String sha256(byte[] b) {
    return HexFormat.of().formatHex(sha256Bytes(b));
  }
}
