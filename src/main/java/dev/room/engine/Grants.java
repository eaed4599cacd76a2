package dev.room.engine;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signed admission grants: {@code base64url(payload) "." base64url(HMAC-SHA256(payload))}.
 *
 * <p>The payload is {@code v1|keyId|room|generation|sessionId|issuedAt|expiresAt}. A grant proves
 * which room, sale generation and session it was issued for and until when; whether the session
 * still holds its slot is a separate (revocation) check against the session registry.
 */
public final class Grants {
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
  private static final int MAX_LENGTH = 512;

  /** Why a grant was refused. */
  public enum Rejection {
    TAMPERED,
    FOREIGN,
    EXPIRED,
    REVOKED;

    public String detail() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** A verified grant's contents. */
  public record Grant(
      String room, long generation, String sessionId, long issuedAt, long expiresAt) {}

  /**
   * The result of checking a grant: {@code rejection} is null when it admits; {@code grant} is set
   * whenever the signature held, so an expired grant still names its session.
   */
  public record Check(Grant grant, Rejection rejection) {}

  private Grants() {}

  public static String sign(KeyRing keys, Grant g) {
    String keyId = keys.signingId();
    String payload =
        "v1|"
            + keyId
            + "|"
            + g.room()
            + "|"
            + g.generation()
            + "|"
            + g.sessionId()
            + "|"
            + g.issuedAt()
            + "|"
            + g.expiresAt();
    byte[] body = payload.getBytes(StandardCharsets.UTF_8);
    return ENCODER.encodeToString(body)
        + "."
        + ENCODER.encodeToString(mac(keys.secret(keyId), body));
  }

  /**
   * Verifies a grant's signature, room, generation and expiry. Revocation (is the session still
   * live?) is the caller's second step.
   */
  public static Check verify(KeyRing keys, String value, String room, long generation, long now) {
    if (value == null || value.length() > MAX_LENGTH) {
      return new Check(null, Rejection.TAMPERED);
    }
    int dot = value.indexOf('.');
    if (dot <= 0 || dot != value.lastIndexOf('.')) {
      return new Check(null, Rejection.TAMPERED);
    }
    byte[] body;
    byte[] sig;
    try {
      body = DECODER.decode(value.substring(0, dot));
      sig = DECODER.decode(value.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      return new Check(null, Rejection.TAMPERED);
    }
    String[] f = new String(body, StandardCharsets.UTF_8).split("\\|", -1);
    if (f.length != 7 || !"v1".equals(f[0])) {
      return new Check(null, Rejection.TAMPERED);
    }
    byte[] secret = keys.secret(f[1]);
    if (secret == null) {
      return new Check(null, Rejection.FOREIGN); // signed by a key this room does not hold
    }
    if (!MessageDigest.isEqual(mac(secret, body), sig)) {
      return new Check(null, Rejection.TAMPERED);
    }
    Grant g;
    try {
      g = new Grant(f[2], Long.parseLong(f[3]), f[4], Long.parseLong(f[5]), Long.parseLong(f[6]));
    } catch (NumberFormatException e) {
      return new Check(null, Rejection.TAMPERED);
    }
    if (!g.room().equals(room)) {
      return new Check(null, Rejection.FOREIGN);
    }
    if (g.generation() != generation) {
      return new Check(g, Rejection.REVOKED); // from an earlier sale generation
    }
    if (now >= g.expiresAt()) {
      return new Check(g, Rejection.EXPIRED);
    }
    return new Check(g, null);
  }

  /** One Mac per thread: every gated request in SESSIONS mode verifies a grant. */
  private static final ThreadLocal<Mac> MACS =
      ThreadLocal.withInitial(
          () -> {
            try {
              return Mac.getInstance("HmacSHA256");
            } catch (GeneralSecurityException e) {
              throw new IllegalStateException("HmacSHA256 is required by every Java platform", e);
            }
          });

  private static byte[] mac(byte[] secret, byte[] body) {
    try {
      Mac mac = MACS.get();
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required by every Java platform", e);
    }
  }
}
