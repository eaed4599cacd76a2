package dev.room.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * How lines keep an identity (say, an account id) without keeping it: as a salted hash.
 *
 * <p>An identity is personal data, so no line stores it raw, in memory, in Redis or in an export.
 * It is first hashed on its own ({@link #prehash}: SHA-256), which is all that ever leaves the JVM,
 * and then bound to the room with the room's random salt ({@link #hash}: SHA-1 of the salt and the
 * prehash, in hex). The second step is SHA-1 because the Redis line computes it inside its script,
 * where {@code redis.sha1hex} is the only digest there is; a preimage of either is out of reach,
 * and the salt makes every room's hashes its own (an export carries its salt, as it carries bearer
 * tokens: it is as secret as they are).
 */
public final class Identities {
  private static final HexFormat HEX = HexFormat.of();
  private static final SecureRandom RANDOM = new SecureRandom();

  private Identities() {}

  /** Whether {@code identity} is none: null or blank, an anonymous visitor. */
  public static boolean anonymous(String identity) {
    return identity == null || identity.isBlank();
  }

  /** A fresh random salt: 32 lowercase hex characters. */
  public static String newSalt() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    return HEX.formatHex(b);
  }

  /** Whether {@code salt} is one {@link #newSalt} could have made. */
  public static boolean validSalt(String salt) {
    return salt != null && salt.matches("[0-9a-f]{32}");
  }

  /** Whether {@code hash} is one {@link #hash} could have made. */
  public static boolean validHash(String hash) {
    return hash != null && hash.matches("[0-9a-f]{40}");
  }

  /** The identity's SHA-256, in hex. */
  public static String prehash(String identity) {
    return HEX.formatHex(digest("SHA-256", identity.getBytes(StandardCharsets.UTF_8)));
  }

  /** The identity's hash under {@code salt}: SHA-1 of the salt followed by the prehash, in hex. */
  public static String hash(String salt, String prehash) {
    return HEX.formatHex(digest("SHA-1", (salt + prehash).getBytes(StandardCharsets.UTF_8)));
  }

  private static byte[] digest(String algorithm, byte[] input) {
    try {
      return MessageDigest.getInstance(algorithm).digest(input);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is required of every JVM", e);
    }
  }
}
