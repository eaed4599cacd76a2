package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.audit.AdmissionLog;
import dev.room.audit.AdmissionLogVerifierAccess;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recorded sale on a real room (fake clock) with a pre-sale draw, a promotion, a rank, removals,
 * a pause, a lapsed offer and an expiry: its admission log verifies, on every line.
 */
public abstract class AdmissionLogSaleTest {
  @TempDir Path dir;

  /** A new, empty line with {@code capacity} slots reading {@code clock}. */
  protected abstract Line newLine(int capacity, FakeClock clock);

  /** After the clock jumped: keeps what the line leases alive (a shared line's instance lease). */
  protected void jumped(Line line) {}

  /** Whether the line journals inside its atomic step (else the log is observed). */
  protected abstract boolean exact();

  @Test
  void aRecordedSaleVerifies() throws Exception {
    FakeClock clock = new FakeClock();
    Instant opensAt = clock.instant().plus(Duration.ofMinutes(10));
    Path file = dir.resolve("admissions.jsonl");
    Line line = newLine(2, clock);
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(2)
            .clock(clock)
            .line(line)
            .name("sale")
            .tokenTtl(Duration.ofMinutes(30))
            .offerTimeout(Duration.ofSeconds(10))
            .schedulePresale(opensAt)
            .admissionLog(AdmissionLog.toFile(file))
            .build();
    List<Visitor> vs = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        Visitor v = Visitor.arrive(room);
        assertEquals(Outcome.WAITING, v.arrived(), "the pre-sale holds everyone");
        vs.add(v);
      }
      room.adminPromote(vs.get(6).token, 2); // moved before the draw: outside its group
      clock.advance(Duration.ofMinutes(10).minusSeconds(1));
      jumped(line);
      for (Visitor v : vs) {
        assertEquals(Outcome.WAITING, v.pollKind(), "pages poll through the pre-sale: all present");
      }
      clock.advance(Duration.ofSeconds(1));
      Visitor late = Visitor.arrive(room); // the first call after opening runs the draw
      assertTrue(room.presaleSeed().isPresent(), "drawn");
      vs.add(late);
      int held = admitReady(vs);
      assertEquals(2, held, "two slots, two in");
      Visitor leaving = vs.get(vs.size() - 2);
      assertTrue(room.removeToken(leaving.token));
      vs.remove(leaving);
      room.setTicketRank(late.token, 5);
      room.setMode(RoomMode.PAUSED);
      for (; held > 0; held--) {
        room.exit();
      }
      assertEquals(0, admitReady(vs), "nobody comes in while paused");
      room.setMode(RoomMode.OPEN);
      // The two now offered let their offers lapse; the reaper passes their slots on.
      clock.advance(Duration.ofSeconds(1));
      List<Visitor> lapsing = new ArrayList<>();
      for (Visitor v : vs) {
        if (v.pollKind() == Outcome.READY) {
          lapsing.add(v);
        }
      }
      assertEquals(2, lapsing.size());
      vs.removeAll(lapsing);
      clock.advance(Duration.ofSeconds(11));
      jumped(line);
      room.evictExpired();
      held = admitReady(vs);
      for (; held > 0; held--) {
        room.exit();
      }
      clock.advance(Duration.ofMinutes(31)); // everyone left expires
      jumped(line);
      room.evictExpired();
    } finally {
      room.close();
    }
    List<String> lines = Files.readAllLines(file);
    assertTrue(lines.get(0).contains("\"kind\":\"genesis\""), lines.get(0));
    assertTrue(lines.get(0).contains(exact() ? "\"line\":\"exact\"" : "\"line\":\"observed\""));
    assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"reveal\"")));
    assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"admit\"")));
    assertTrue(lines.stream().anyMatch(l -> l.contains("\"mode\":\"paused\"")));
    if (exact()) {
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"draw\"")));
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"why\":\"promote\"")));
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"why\":\"rank\"")));
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"lapse\"")));
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"expire\"")));
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"remove\"")));
    }
    for (String l : lines) {
      assertFalse(l.matches(".*[0-9a-f]{32}.*") && !l.contains("\"hash\""), l);
    }
    String verdict = AdmissionLogVerifierAccess.verify(file);
    assertTrue(verdict.startsWith("verified"), verdict);
  }

  /**
   * Regression (second reading): a place offered to one device and taken over by the identity's
   * other device is admitted in the arrival itself; an observed log (a shared line) left that
   * admission out, so the log held fewer admissions than the line made.
   */
  @Test
  void anOfferTakenOverByAnotherDeviceIsLoggedAsAnAdmission() throws Exception {
    FakeClock clock = new FakeClock();
    Path file = dir.resolve("rejoin.jsonl");
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .line(newLine(1, clock))
            .admissionLog(AdmissionLog.toFile(file))
            .build();
    try {
      assertTrue(room.tryEnter());
      long[] first = dev.room.spi.Tokens.generate();
      String firstToken = dev.room.spi.Tokens.format(first[0], first[1]);
      long o = room.arrive(first[0], first[1], firstToken, "alice", "", false, false);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      room.exit(); // the slot is offered to alice's first device
      long[] second = dev.room.spi.Tokens.generate();
      String secondToken = dev.room.spi.Tokens.format(second[0], second[1]);
      o = room.arrive(second[0], second[1], secondToken, "alice", "", false, false);
      assertTrue(Outcome.has(o, Outcome.REJOINED));
      assertEquals(Outcome.ADMITTED, Outcome.kind(o), "the offer is taken on the new device");
      room.exit();
    } finally {
      room.close();
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(
        1, lines.stream().filter(l -> l.contains("\"kind\":\"admit\"")).count(), "one admission");
    String verdict = AdmissionLogVerifierAccess.verify(file);
    assertTrue(verdict.startsWith("verified"), verdict);
  }

  /**
   * Regression (second reading): an identity's expired place, retired when the identity joined
   * again, was journalled as an operator's removal.
   */
  @Test
  void anExpiredPlaceRetiredOnARejoinIsLoggedAsAnExpiry() throws Exception {
    FakeClock clock = new FakeClock();
    Path file = dir.resolve("expired-rejoin.jsonl");
    Line line = newLine(1, clock);
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .line(line)
            .tokenTtl(Duration.ofMinutes(1))
            .admissionLog(AdmissionLog.toFile(file))
            .build();
    try {
      assertTrue(room.tryEnter());
      long[] first = dev.room.spi.Tokens.generate();
      String firstToken = dev.room.spi.Tokens.format(first[0], first[1]);
      long o = room.arrive(first[0], first[1], firstToken, "alice", "", false, false);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      clock.advance(Duration.ofMinutes(2));
      jumped(line);
      long[] second = dev.room.spi.Tokens.generate();
      String secondToken = dev.room.spi.Tokens.format(second[0], second[1]);
      o = room.arrive(second[0], second[1], secondToken, "alice", "", false, false);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      assertTrue(Outcome.has(o, Outcome.EVICTED), "the expired place went, a fresh one came");
      room.exit();
    } finally {
      room.close();
    }
    List<String> lines = Files.readAllLines(file);
    assertFalse(lines.stream().anyMatch(l -> l.contains("\"kind\":\"remove\"")), "not removed");
    if (exact()) {
      assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"expire\"")), "expired");
    }
    String verdict = AdmissionLogVerifierAccess.verify(file);
    assertTrue(verdict.startsWith("verified"), verdict);
  }

  @Test
  void aLogAttachedToABusyRoomStartsFromACheckpoint() throws Exception {
    FakeClock clock = new FakeClock();
    Path file = dir.resolve("late.jsonl");
    WaitingRoom room =
        WaitingRoom.builder().capacity(1).clock(clock).line(newLine(1, clock)).build();
    try {
      assertTrue(room.tryEnter());
      List<Visitor> vs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        vs.add(Visitor.arrive(room));
      }
      AdmissionLog log = AdmissionLog.toFile(file);
      room.setAdmissionLog(log);
      assertThrows(IllegalStateException.class, () -> room.setAdmissionLog(log));
      room.exit();
      assertEquals(1, admitReady(vs));
    } finally {
      room.close();
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(
        exact() ? 3 : 0, lines.stream().filter(l -> l.contains("\"kind\":\"held\"")).count());
    String verdict = AdmissionLogVerifierAccess.verify(file);
    assertTrue(verdict.startsWith("verified"), verdict);
  }

  @Test
  void aLogSetBeforeAnImportRecordsTheImportedLine() throws Exception {
    FakeClock clock = new FakeClock();
    java.io.ByteArrayOutputStream state = new java.io.ByteArrayOutputStream();
    try (WaitingRoom before =
        WaitingRoom.builder().capacity(1).clock(clock).line(newLine(1, clock)).build()) {
      assertTrue(before.tryEnter());
      for (int i = 0; i < 4; i++) {
        Visitor.arrive(before);
      }
      before.exportTo(state);
    }
    Path file = dir.resolve("restored.jsonl");
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .line(newLine(1, clock))
            .admissionLog(AdmissionLog.toFile(file))
            .build();
    try {
      room.importFrom(new java.io.ByteArrayInputStream(state.toByteArray()));
      for (TicketInfo t : room.queue(10)) {
        room.poll(
            dev.room.spi.Tokens.hi(t.token()), dev.room.spi.Tokens.lo(t.token()), clock.millis());
      }
    } finally {
      room.close();
    }
    String verdict = AdmissionLogVerifierAccess.verify(file);
    assertTrue(verdict.startsWith("verified"), verdict);
    if (exact()) {
      assertEquals(
          4,
          Files.readAllLines(file).stream().filter(l -> l.contains("\"kind\":\"held\"")).count());
    }
  }

  /** Polls everyone and lets in each ready visitor; returns how many came in (holding a slot). */
  private static int admitReady(List<Visitor> vs) {
    int in = 0;
    for (Visitor v : List.copyOf(vs)) {
      if (v.pollKind() == Outcome.READY && v.claim()) {
        vs.remove(v);
        in++;
      }
    }
    return in;
  }
}
