package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.room.engine.Challenges;
import dev.room.engine.Challenges.Verdict;
import dev.room.engine.LocalJoinLedger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** ALTCHA challenges on a fake clock: what a solution proves, and every way one is refused. */
class ChallengesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final FakeClock clock = new FakeClock(1_767_225_599_457L);
  private final LocalJoinLedger ledger = new LocalJoinLedger();
  private final Challenges challenges = new Challenges(ledger);

  /** What an ALTCHA client does: try numbers until SHA-256(salt + n) is the challenge. */
  static String solve(String challengeJson) throws Exception {
    JsonNode c = JSON.readTree(challengeJson);
    String salt = c.get("salt").asText();
    String want = c.get("challenge").asText();
    for (long n = 0; n <= c.get("maxnumber").asLong(); n++) {
      if (Challenges.sha256(salt + n).equals(want)) {
        ObjectNode p = JSON.createObjectNode();
        p.put("algorithm", c.get("algorithm").asText());
        p.put("challenge", want);
        p.put("number", n);
        p.put("salt", salt);
        p.put("signature", c.get("signature").asText());
        p.put("took", 12);
        return Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(p));
      }
    }
    throw new AssertionError("no number solves " + challengeJson);
  }

  private static String edit(String payload, String field, Object value) throws Exception {
    ObjectNode p = (ObjectNode) JSON.readTree(Base64.getDecoder().decode(payload));
    if (value instanceof Long l) {
      p.put(field, l);
    } else {
      p.put(field, (String) value);
    }
    return Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(p));
  }

  @Test
  void aChallengeIsAltchasFormatAndDifficultyBitsSetMaxnumber() throws Exception {
    JsonNode c = JSON.readTree(challenges.issue("sale", 10, clock.millis()));
    assertEquals("SHA-256", c.get("algorithm").asText());
    assertEquals(1024, c.get("maxnumber").asLong());
    String salt = c.get("salt").asText();
    assertTrue(salt.matches("[0-9a-f]{24}\\?expires=\\d+"), salt);
    assertEquals(
        (clock.millis() + Challenges.LIFETIME_MILLIS) / 1000 * 1000, Challenges.expires(salt));
    assertTrue(c.get("challenge").asText().matches("[0-9a-f]{64}"));
    assertTrue(c.get("signature").asText().matches("[0-9a-f]{64}"));
    assertEquals(
        HexFormat.of().formatHex(hmac(roomKey("sale"), c.get("challenge").asText())),
        c.get("signature").asText(),
        "signature = HMAC-SHA256(key, challenge), as ALTCHA's servers sign");
  }

  @Test
  void aSolutionIsVerifiedOnceThenReplaysAreRefused() throws Exception {
    String payload = solve(challenges.issue("sale", 8, clock.millis()));
    clock.advanceMillis(2_000);
    assertEquals(Verdict.SOLVED, challenges.verify(payload, "sale", clock.millis()));
    assertEquals(Verdict.REPLAYED, challenges.verify(payload, "sale", clock.millis()));
    clock.advanceMillis(60_000);
    assertEquals(Verdict.REPLAYED, challenges.verify(payload, "sale", clock.millis()));
    String urlSafe =
        Base64.getUrlEncoder().withoutPadding().encodeToString(Base64.getDecoder().decode(payload));
    assertEquals(Verdict.REPLAYED, challenges.verify(urlSafe, "sale", clock.millis()));
  }

  @Test
  void aSolutionSentAsTheWidgetsBase64UrlIsVerified() throws Exception {
    String payload = solve(challenges.issue("", 6, clock.millis()));
    String urlSafe =
        Base64.getUrlEncoder().withoutPadding().encodeToString(Base64.getDecoder().decode(payload));
    assertEquals(Verdict.SOLVED, challenges.verify(urlSafe, "", clock.millis()));
  }

  @Test
  void anExpiredSolutionIsRefused() throws Exception {
    String payload = solve(challenges.issue("sale", 8, clock.millis()));
    clock.advanceMillis(Challenges.LIFETIME_MILLIS + 1_000);
    assertEquals(Verdict.EXPIRED, challenges.verify(payload, "sale", clock.millis()));
  }

  @Test
  void anotherRoomsChallengeIsRefusedThoughTheSecretIsShared() throws Exception {
    String payload = solve(challenges.issue("sale-a", 8, clock.millis()));
    Challenges sameSecret = new Challenges(ledger);
    assertEquals(Verdict.FORGED, sameSecret.verify(payload, "sale-b", clock.millis()));
    assertEquals(Verdict.SOLVED, sameSecret.verify(payload, "sale-a", clock.millis()));
  }

  @Test
  void anotherLedgersChallengeIsRefused() throws Exception {
    String payload = solve(challenges.issue("sale", 8, clock.millis()));
    Challenges elsewhere = new Challenges(new LocalJoinLedger());
    assertEquals(Verdict.FORGED, elsewhere.verify(payload, "sale", clock.millis()));
  }

  @Test
  void tamperingIsRefused() throws Exception {
    String payload = solve(challenges.issue("sale", 8, clock.millis()));
    String sig =
        ((ObjectNode) JSON.readTree(Base64.getDecoder().decode(payload))).get("signature").asText();
    String flipped = (sig.charAt(0) == '0' ? "1" : "0") + sig.substring(1);
    long now = clock.millis();
    assertEquals(
        Verdict.FORGED, challenges.verify(edit(payload, "signature", flipped), "sale", now));
    assertEquals(
        Verdict.FORGED,
        challenges.verify(edit(payload, "challenge", Challenges.sha256("x")), "sale", now),
        "a challenge of the client's own making");
    String later = "00112233445566778899aabb?expires=" + (now / 1000 + 86_400);
    assertEquals(
        Verdict.UNSOLVED,
        challenges.verify(edit(payload, "salt", later), "sale", now),
        "a salt with a later expiry does not hash to the signed challenge");
    long n =
        ((ObjectNode) JSON.readTree(Base64.getDecoder().decode(payload))).get("number").asLong();
    assertEquals(Verdict.UNSOLVED, challenges.verify(edit(payload, "number", n + 1), "sale", now));
    assertEquals(Verdict.SOLVED, challenges.verify(payload, "sale", now), "the real one still is");
  }

  @Test
  void garbageIsMalformedAndNothingIsMissing() throws Exception {
    long now = clock.millis();
    assertEquals(Verdict.MISSING, challenges.verify(null, "sale", now));
    assertEquals(Verdict.MISSING, challenges.verify("", "sale", now));
    assertEquals(Verdict.MALFORMED, challenges.verify("not base64!", "sale", now));
    assertEquals(Verdict.MALFORMED, challenges.verify(b64("[1,2]"), "sale", now));
    assertEquals(Verdict.MALFORMED, challenges.verify(b64("{\"algorithm\":\"SHA-1\"}"), "", now));
    assertEquals(Verdict.MALFORMED, challenges.verify("A".repeat(5000), "sale", now));
    String payload = solve(challenges.issue("sale", 4, now));
    assertEquals(
        Verdict.MALFORMED,
        challenges.verify(edit(payload, "salt", "00112233"), "sale", now),
        "no expiry");
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private byte[] roomKey(String room) throws Exception {
    return hmac(ledger.secret(), "dev.room altcha " + room);
  }

  private static byte[] hmac(byte[] key, String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }
}
