package dev.room.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.engine.InMemoryLine;
import dev.room.engine.PresaleDraw;
import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verifier: an honest log verifies; each kind of tampering is refused at the exact entry. */
class AdmissionLogVerifierTest {
  private static final Policy POLICY = new Policy(60_000, 0, 0, 1_000, 10_000, 0);

  @TempDir Path dir;
  private final FakeClock clock = new FakeClock();

  /** A real line's log: arrivals, an immediate admission, offers, a promotion, a removal. */
  private Path honestLog() throws Exception {
    Path f = dir.resolve("honest.jsonl");
    try (AdmissionLog log = AdmissionLog.toFile(f)) {
      InMemoryLine line = new InMemoryLine(1);
      line.journal(log.open("audit", clock, true));
      List<long[]> ts = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        long[] t = Tokens.generate();
        long o = line.arrive(t[0], t[1], "", false, clock.millis(), POLICY);
        if (Outcome.kind(o) == Outcome.WAITING) {
          ts.add(t);
        }
        clock.advanceMillis(10);
      }
      line.promote(ts.get(3)[0], ts.get(3)[1], 1);
      line.remove(ts.get(1)[0], ts.get(1)[1], clock.millis());
      for (int round = 0; round < 4; round++) {
        line.exit(clock.millis()); // the slot goes to the first in line
        for (long[] t : ts) {
          line.poll(t[0], t[1], clock.millis(), POLICY);
          line.claim(t[0], t[1], clock.millis(), POLICY);
        }
        clock.advanceMillis(10);
      }
    }
    return f;
  }

  private String verify(Path f, String... more) {
    return AdmissionLogVerifierAccess.verify(f, more);
  }

  private Path rewrite(Path f, List<String> lines) throws Exception {
    Path g = dir.resolve("tampered.jsonl");
    Files.write(g, lines);
    return g;
  }

  /** The 1-based number of the first line containing {@code s}. */
  private static int lineOf(List<String> lines, String s) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(s)) {
        return i + 1;
      }
    }
    throw new AssertionError("no line with " + s);
  }

  @Test
  void anHonestLogVerifies() throws Exception {
    Path f = honestLog();
    String v = verify(f);
    assertTrue(v.startsWith("verified: "), v);
    List<String> lines = Files.readAllLines(f);
    assertTrue(v.contains("4 admissions"), v);
    String head = lines.get(lines.size() - 1).replaceAll(".*\"hash\":\"([0-9a-f]{64})\"}", "$1");
    assertTrue(v.endsWith(head), v);
    String mid = lines.get(5).replaceAll(".*\"hash\":\"([0-9a-f]{64})\"}", "$1");
    assertTrue(verify(f, "--head", mid).startsWith("verified"), "a head published mid-sale");
    assertTrue(verify(f, "--head", "ab".repeat(32)).contains("no entry has the published head"));
  }

  @Test
  void anEditedFieldIsRefusedAtItsEntry() throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(honestLog()));
    int k = lineOf(lines, "\"kind\":\"offer\"");
    lines.set(k - 1, lines.get(k - 1).replaceFirst("\"n\":(\\d+)", "\"n\":99"));
    String v = verify(rewrite(null, lines));
    assertTrue(v.startsWith("NOT VERIFIED: line " + k + ": the hash does not match"), v);
  }

  @Test
  void aDeletedLineIsRefusedWhereTheGapIs() throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(honestLog()));
    int k = lineOf(lines, "\"kind\":\"remove\"");
    lines.remove(k - 1);
    String v = verify(rewrite(null, lines));
    assertTrue(v.startsWith("NOT VERIFIED: line " + k + ": seq " + k + " where " + (k - 1)), v);
  }

  @Test
  void aReorderedPairIsRefusedAtTheFirstOfThem() throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(honestLog()));
    int k = lineOf(lines, "\"kind\":\"admit\"");
    String a = lines.get(k - 1);
    lines.set(k - 1, lines.get(k));
    lines.set(k, a);
    String v = verify(rewrite(null, lines));
    assertTrue(v.startsWith("NOT VERIFIED: line " + k + ": seq "), v);
  }

  @Test
  void aLogCutShortIsRefusedUnlessStillOpen() throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(honestLog()));
    lines.remove(lines.size() - 1);
    Path g = rewrite(null, lines);
    assertTrue(verify(g).startsWith("NOT VERIFIED: end of log: no close entry"), verify(g));
    assertTrue(verify(g, "--open").startsWith("verified"), verify(g, "--open"));
  }

  /** Writes a forged log whose chain is sound: only the policy can catch it. */
  private Path forged(long[]... records) throws Exception {
    return forged(null, records);
  }

  private Path forged(Object[] extras, long[]... records) throws Exception {
    Path f = dir.resolve("forged.jsonl");
    EntryWriter w = new EntryWriter(0, EntryWriter.ZERO);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] salt = new byte[16];
    long[] genesis = {AdmissionLog.NOTE, 0, 0, 0, 0, 0, 1};
    w.write(genesis, new String[] {"genesis", "forged", "exact"}, salt, out);
    for (int i = 0; i < records.length; i++) {
      w.write(records[i], extras == null ? null : extras[i], salt, out);
    }
    w.write(genesis, new String[] {"close"}, salt, out);
    Files.write(f, out.toByteArray());
    return f;
  }

  private static long[] r(int kind, long n, long band, long place, long order, long flags) {
    return new long[] {kind, n, band, place, order, flags, 2};
  }

  private static long[] arrive(long n) {
    return r(LineJournal.ARRIVE, n, 0, n, n, 0);
  }

  @Test
  void anAdmissionOutOfFifoOrderIsRefusedAtThatOffer() throws Exception {
    Path f = forged(arrive(1), arrive(2), r(LineJournal.OFFER, 2, 0, 0, 0, 0));
    String v = verify(f);
    assertTrue(
        v.startsWith(
            "NOT VERIFIED: line 4: ticket 2 was offered a slot while ticket 1 waited ahead"),
        v);
  }

  @Test
  void passingAnAwayClientIsFifoButPassingOneWhoCameBackIsNot() throws Exception {
    long[] lapseAway = r(LineJournal.LAPSE, 1, 0, 1, 1, LineJournal.AWAY);
    Path ok =
        forged(
            arrive(1),
            arrive(2),
            r(LineJournal.OFFER, 1, 0, 0, 0, 0),
            lapseAway,
            r(LineJournal.OFFER, 2, 0, 0, 0, 0));
    assertTrue(verify(ok).startsWith("verified"), verify(ok));
    Path bad =
        forged(
            arrive(1),
            arrive(2),
            r(LineJournal.OFFER, 1, 0, 0, 0, 0),
            lapseAway,
            r(LineJournal.PRESENT, 1, 0, 0, 0, 0),
            r(LineJournal.OFFER, 2, 0, 0, 0, 0));
    assertTrue(verify(bad).startsWith("NOT VERIFIED: line 7: ticket 2"), verify(bad));
  }

  @Test
  void anAdmissionDuringAPauseIsRefused() throws Exception {
    Path f =
        forged(
            arrive(1),
            r(LineJournal.ALLOWANCE, 0, 0, 0, 0, 0),
            r(LineJournal.OFFER, 1, 0, 0, 0, 0));
    String v = verify(f);
    assertTrue(v.startsWith("NOT VERIFIED: line 4: ticket 1 was offered a slot while the line"), v);
  }

  @Test
  void aJumpAheadOfTheBackIsRefusedButARecordedPromotionIsNot() throws Exception {
    Path jump = forged(arrive(1), r(LineJournal.ARRIVE, 2, 0, 0, 2, 0));
    assertTrue(verify(jump).startsWith("NOT VERIFIED: line 3: ticket 2 does not join"));
    Path promoted =
        forged(
            arrive(1),
            arrive(2),
            r(LineJournal.MOVE, 1, 0, 1, 4, LineJournal.WHY_TIE), // the holder goes behind
            r(LineJournal.MOVE, 2, 0, 1, 3, LineJournal.TIED | LineJournal.WHY_PROMOTE),
            r(LineJournal.OFFER, 2, 0, 0, 0, 0));
    assertTrue(verify(promoted).startsWith("verified"), verify(promoted));
  }

  @Test
  void thePresaleDrawIsRecomputedFromItsRevealedSeed() throws Exception {
    byte[] seed = PresaleDraw.newSeed();
    int n = 6;
    int[] order = PresaleDraw.order(seed, n);
    List<long[]> rs = new ArrayList<>();
    List<Object> xs = new ArrayList<>();
    rs.add(r(AdmissionLog.NOTE, 0, 0, 0, 0, 0));
    xs.add(new String[] {"presale", PresaleDraw.sha256Hex(seed)});
    for (int i = 1; i <= n; i++) {
      rs.add(arrive(i));
      xs.add(null);
    }
    rs.add(r(AdmissionLog.NOTE, 0, 0, 0, 0, 0));
    xs.add(new String[] {"reveal", PresaleDraw.hex(seed)});
    rs.add(r(AdmissionLog.DRAW, 0, 0, 0, 0, 0));
    xs.add(new long[] {1, 2, 3, 4, 5, 6});
    int firstMove = rs.size() + 2; // genesis first, lines count from 1
    for (int k = 0; k < n; k++) {
      long who = order[k] + 1;
      rs.add(r(LineJournal.MOVE, who, 0, k + 1, who, LineJournal.WHY_DRAW));
      xs.add(null);
    }
    Path honest = forged(xs.toArray(), rs.toArray(new long[0][]));
    assertTrue(verify(honest).startsWith("verified"), verify(honest));

    // The operator swaps the first two places: refused at the first move that disagrees.
    long[] a = rs.get(firstMove - 2);
    long[] b = rs.get(firstMove - 1);
    long pa = a[3];
    a[3] = b[3];
    b[3] = pa;
    Path swapped = forged(xs.toArray(), rs.toArray(new long[0][]));
    String v = verify(swapped);
    assertTrue(v.startsWith("NOT VERIFIED: line " + firstMove + ": ticket "), v);
    assertTrue(v.contains("is not where the pre-sale draw puts it"), v);

    // A seed other than the one committed to.
    b[3] = a[3];
    xs.set(n + 1, new String[] {"reveal", PresaleDraw.hex(PresaleDraw.newSeed())});
    v = verify(forged(xs.toArray(), rs.toArray(new long[0][])));
    assertTrue(v.startsWith("NOT VERIFIED: line " + (n + 3) + ": the revealed seed"), v);
  }

  @Test
  void aGapIsRefused() throws Exception {
    Path f = forged(arrive(1), r(AdmissionLog.GAP, 3, 0, 0, 0, 0));
    assertTrue(verify(f).startsWith("NOT VERIFIED: line 3: 3 entries were lost"), verify(f));
  }

  @Test
  void aReopenedFileContinuesTheChain() throws Exception {
    Path f = honestLog();
    int before = Files.readAllLines(f).size();
    try (AdmissionLog log = AdmissionLog.toFile(f)) {
      InMemoryLine line = new InMemoryLine(1);
      line.journal(log.open("audit", clock, true));
      long[] t = Tokens.generate();
      line.arrive(t[0], t[1], "", false, clock.millis(), POLICY);
    }
    List<String> lines = Files.readAllLines(f);
    assertTrue(lines.get(before).contains("\"seq\":" + before + ","), lines.get(before));
    assertTrue(lines.get(before).contains("\"kind\":\"genesis\""));
    assertTrue(verify(f).startsWith("verified"), verify(f));
  }

  @Test
  void mainExitsZeroOneOrTwoAndRunsFromTheClassesAlone() throws Exception {
    Path honest = honestLog();
    List<String> lines = new ArrayList<>(Files.readAllLines(honest));
    lines.set(3, lines.get(3).replace("\"t\":", "\"t\":1"));
    Path bad = rewrite(null, lines);
    assertEquals(0, java(honest.toString()).status);
    Run r = java("verify", bad.toString());
    assertEquals(1, r.status, r.out);
    assertTrue(r.out.startsWith("NOT VERIFIED: line 4: "), r.out);
    assertEquals(2, java(dir.resolve("missing.jsonl").toString()).status);
    assertEquals(2, java().status);
  }

  private record Run(int status, String out) {}

  /** Runs the verifier's main in a JVM of its own, with only this module's classes on its path. */
  private static Run java(String... args) throws Exception {
    String classes =
        Path.of(
                AdmissionLogVerifier.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI())
            .toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(classes);
    cmd.add(AdmissionLogVerifier.class.getName());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new Run(p.exitValue(), out);
  }

  // ── Absence (issue 16): Line.lapseAbsent ──────────────────────────────

  private static long[] at(long t, long[] record) {
    record[6] = t;
    return record;
  }

  private static long[] absent(long t, long n, long heard, long window) {
    return at(t, r(LineJournal.ABSENT, n, 0, heard, window, 0));
  }

  @Test
  void aRealLineThatPassesOverAbsentClientsVerifies() throws Exception {
    Policy present = new Policy(60_000, 0, 0, 1_000, 10_000, 0, 2_000);
    Path f = dir.resolve("absent.jsonl");
    try (AdmissionLog log = AdmissionLog.toFile(f)) {
      InMemoryLine line = new InMemoryLine(1);
      line.journal(log.open("audit", clock, true));
      long[] first = Tokens.generate();
      line.arrive(first[0], first[1], "", false, clock.millis(), present); // admitted
      List<long[]> ts = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        long[] t = Tokens.generate();
        line.arrive(t[0], t[1], "", false, clock.millis(), present);
        ts.add(t);
      }
      line.lapseAbsent(clock.millis(), present);
      clock.advanceMillis(1_500);
      line.poll(ts.get(1)[0], ts.get(1)[1], clock.millis(), present);
      clock.advanceMillis(1_000); // 0 silent 2.5 s: passed over, the slot is 1's
      line.exit(clock.millis());
      line.claim(ts.get(1)[0], ts.get(1)[1], clock.millis(), present);
      line.poll(ts.get(2)[0], ts.get(2)[1], clock.millis(), present);
      line.exit(clock.millis()); // offered to 2, who goes silent before it is told
      clock.advanceMillis(2_500);
      assertEquals(1, line.lapseAbsent(clock.millis(), present)); // nobody present: a free slot
      line.poll(ts.get(0)[0], ts.get(0)[1], clock.millis(), present); // back, first: offered
      line.claim(ts.get(0)[0], ts.get(0)[1], clock.millis(), present);
      line.checkInvariants();
    }
    String v = verify(f);
    assertTrue(v.startsWith("verified: "), v);
    String all = Files.readString(f);
    assertTrue(all.contains("\"kind\":\"absent\""), all);
    assertTrue(v.contains("3 admissions"), v); // the first came straight in
  }

  @Test
  void aPassOverVerifiesOnlyAfterAWholeWindowOfSilence() throws Exception {
    Path ok = forged(arrive(1), arrive(2), absent(2_500, 1, 0, 2_000), at(2_500, offer(2)));
    assertTrue(verify(ok).startsWith("verified"), verify(ok));
    Path soon = forged(arrive(1), arrive(2), absent(2_500, 1, 1_000, 2_000), at(2_500, offer(2)));
    assertTrue(
        verify(soon)
            .startsWith(
                "NOT VERIFIED: line 4: ticket 1 was passed over as absent after 1500 ms of"
                    + " silence, less than its window of 2000 ms"),
        verify(soon));
    Path noWindow = forged(arrive(1), arrive(2), absent(2_500, 1, 0, 0), at(2_500, offer(2)));
    assertTrue(
        verify(noWindow).startsWith("NOT VERIFIED: line 4: ticket 1 was passed over as absent"),
        verify(noWindow));
    Path silentSinceBeforeItCameBack =
        forged(
            arrive(1),
            arrive(2),
            absent(2_500, 1, 0, 2_000),
            at(2_600, r(LineJournal.PRESENT, 1, 0, 2_600, 0, 0)),
            absent(5_000, 1, 0, 2_000),
            at(5_000, offer(2)));
    assertTrue(
        verify(silentSinceBeforeItCameBack)
            .startsWith(
                "NOT VERIFIED: line 6: ticket 1 was passed over as silent since 0, but the log"
                    + " shows it heard from at 2600"),
        verify(silentSinceBeforeItCameBack));
  }

  @Test
  void anAbsentClientsUntoldOfferMustLapseAtOnce() throws Exception {
    long[] lapseAway = at(2_500, r(LineJournal.LAPSE, 1, 0, 1, 1, LineJournal.AWAY));
    Path ok =
        forged(arrive(1), arrive(2), offer(1), absent(2_500, 1, 0, 2_000), lapseAway, offer(2));
    assertTrue(verify(ok).startsWith("verified"), verify(ok));
    Path kept = forged(arrive(1), arrive(2), offer(1), absent(2_500, 1, 0, 2_000), offer(2));
    assertTrue(
        verify(kept)
            .startsWith(
                "NOT VERIFIED: line 6: ticket 1's untold offer was absent but did not lapse"),
        verify(kept));
  }

  private static long[] offer(long n) {
    return r(LineJournal.OFFER, n, 0, 0, 0, 0);
  }
}
