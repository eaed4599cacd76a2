package dev.room.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.spi.JoinLedger;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proof-of-work challenges in the ALTCHA protocol (altcha.org), so its widget and solvers work with
 * the room and the room's page works with its servers.
 *
 * <p>A challenge is {@code {algorithm: "SHA-256", challenge, maxnumber, salt, signature}}: {@code
 * challenge} is the hex SHA-256 of {@code salt + number} for a secret random {@code number} in
 * {@code [0, maxnumber]}, {@code salt} is random hex followed by {@code ?expires=<unix seconds>},
 * and {@code signature} the hex HMAC-SHA256 of {@code challenge}. The client finds {@code number}
 * by trying them in turn (on average {@code maxnumber / 2} hashes) and sends back the base64 JSON
 * {@code {algorithm, challenge, number, salt, signature}}. Difficulty {@code bits} means {@code
 * maxnumber = 2^bits}.
 *
 * <p>Verification is stateless but for replays: the signature proves the room issued the challenge
 * (the HMAC key is derived from the ledger's secret and the room's name, so another room's
 * challenge is refused), the salt's expiry bounds its life, and the ledger remembers each spent
 * challenge until it expires, so one solution buys one ticket. Written with the JDK's {@link
 * MessageDigest} and {@link Mac}: the protocol is a few lines, not worth a dependency.
 */
public final class Challenges {
  /** How long a challenge may be solved and spent: minutes on a slow phone, with room to spare. */
  public static final long LIFETIME_MILLIS = 5 * 60_000;

  /** The largest difficulty: 2^30 hashes is about ten minutes of a fast desktop browser. */
  public static final int MAX_BITS = 30;

  /** What a payload proves. */
  public enum Verdict {
    SOLVED,
    MISSING,
    MALFORMED,
    EXPIRED,
    FORGED,
    UNSOLVED,
    REPLAYED
  }

  private static final int MAX_PAYLOAD = 2048;
  private static final String ALGORITHM = "SHA-256";
  private static final HexFormat HEX = HexFormat.of();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(() -> newInstance(() -> MessageDigest.getInstance(ALGORITHM)));
  private static final ThreadLocal<Mac> HMAC =
      ThreadLocal.withInitial(() -> newInstance(() -> Mac.getInstance("HmacSHA256")));

  private final JoinLedger ledger;
  private volatile RoomKey key; // the key of the room's current name, derived on first use

  private record RoomKey(String room, SecretKeySpec spec) {}

  public Challenges(JoinLedger ledger) {
    this.ledger = ledger;
  }

  /** A fresh challenge for {@code room} at difficulty {@code bits}, as the JSON ALTCHA serves. */
  public String issue(String room, int bits, long now) {
    long maxNumber = 1L << bits;
    long number = RANDOM.nextLong(maxNumber + 1);
    byte[] salt = new byte[12];
    RANDOM.nextBytes(salt);
    String s = HEX.formatHex(salt) + "?expires=" + (now + LIFETIME_MILLIS) / 1000;
    String challenge = sha256(s + number);
    return "{\"algorithm\":\""
        + ALGORITHM
        + "\",\"challenge\":\""
        + challenge
        + "\",\"maxnumber\":"
        + maxNumber
        + ",\"salt\":\""
        + s
        + "\",\"signature\":\""
        + sign(room, challenge)
        + "\"}";
  }

  /** Checks a client's payload (base64 JSON) for {@code room} at {@code now}; spends it if good. */
  public Verdict verify(String payload, String room, long now) {
    if (payload == null || payload.isEmpty()) {
      return Verdict.MISSING;
    }
    if (payload.length() > MAX_PAYLOAD) {
      return Verdict.MALFORMED;
    }
    JsonNode p;
    try {
      boolean url = payload.indexOf('-') >= 0 || payload.indexOf('_') >= 0;
      byte[] json = (url ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(payload);
      p = JSON.readTree(json);
    } catch (IllegalArgumentException | IOException e) {
      return Verdict.MALFORMED;
    }
    if (p == null
        || !p.isObject()
        || !ALGORITHM.equals(p.path("algorithm").asText())
        || !p.path("number").canConvertToLong()
        || !p.path("challenge").isTextual()
        || !p.path("salt").isTextual()
        || !p.path("signature").isTextual()) {
      return Verdict.MALFORMED;
    }
    String challenge = p.get("challenge").asText();
    String salt = p.get("salt").asText();
    long expiresAt = expires(salt);
    if (expiresAt < 0) {
      return Verdict.MALFORMED;
    }
    if (expiresAt <= now) {
      return Verdict.EXPIRED;
    }
    byte[] signature = ascii(p.get("signature").asText());
    if (!MessageDigest.isEqual(ascii(sign(room, challenge)), signature)) {
      return Verdict.FORGED;
    }
    if (!challenge.equals(sha256(salt + p.get("number").asLong()))) {
      return Verdict.UNSOLVED;
    }
    return ledger.spend(challenge, expiresAt, now) ? Verdict.SOLVED : Verdict.REPLAYED;
  }

  /** The salt's {@code expires} parameter in epoch millis; -1 when it has none. */
  public static long expires(String salt) {
    int q = salt.indexOf('?');
    if (q < 0) {
      return -1;
    }
    for (String param : salt.substring(q + 1).split("&")) {
      if (param.startsWith("expires=")) {
        try {
          long seconds = Long.parseLong(param.substring("expires=".length()));
          return seconds > 0 && seconds < Long.MAX_VALUE / 1000 ? seconds * 1000 : -1;
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  /** The hex HMAC-SHA256 of {@code challenge} under {@code room}'s key. */
  public String sign(String room, String challenge) {
    Mac mac = HMAC.get();
    try {
      mac.init(key(room));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 refused its key", e);
    }
    return HEX.formatHex(mac.doFinal(challenge.getBytes(StandardCharsets.UTF_8)));
  }

  public static String sha256(String s) {
    return HEX.formatHex(SHA256.get().digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The room's key: the ledger's secret (shared by a fleet on Redis) specialised to the room's
   * name, so two rooms sharing a secret still refuse each other's challenges.
   */
  private SecretKeySpec key(String room) {
    RoomKey k = key;
    if (k != null && k.room().equals(room)) {
      return k.spec();
    }
    Mac mac = HMAC.get();
    try {
      mac.init(new SecretKeySpec(ledger.secret(), "HmacSHA256"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 refused the ledger's secret", e);
    }
    byte[] derived = mac.doFinal(("dev.room altcha " + room).getBytes(StandardCharsets.UTF_8));
    k = new RoomKey(room, new SecretKeySpec(derived, "HmacSHA256"));
    key = k;
    return k.spec();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private interface Factory<T> {
    T make() throws GeneralSecurityException;
  }

  private static <T> T newInstance(Factory<T> f) {
    try {
      return f.make();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK lacks SHA-256 or HmacSHA256", e);
    }
  }
}
