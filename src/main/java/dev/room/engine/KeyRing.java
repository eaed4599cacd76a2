package dev.room.engine;

import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys that sign and verify admission grants: one signing key and any number of older keys that
 * still verify, so grants issued before a rotation stay valid until their key is removed.
 */
public final class KeyRing {
  /** The shortest secret accepted, in bytes (HMAC-SHA256's block-size guidance). */
  public static final int MIN_SECRET_BYTES = 32;

  private final Map<String, byte[]> keys = new ConcurrentHashMap<>();
  private volatile String signingId;

  /** A ring with a fresh random key, for a room whose instances share nothing. */
  public KeyRing() {
    byte[] secret = new byte[MIN_SECRET_BYTES];
    new SecureRandom().nextBytes(secret);
    install(DEFAULT_KEY, secret);
  }

  /** The default key's id: the random key a ring starts with. */
  public static final String DEFAULT_KEY = "k0";

  /** The default key's secret (random unless {@link #shareDefault} replaced it). */
  public byte[] defaultSecret() {
    byte[] secret = keys.get(DEFAULT_KEY);
    return secret == null ? null : secret.clone();
  }

  /**
   * Gives the default key the secret every instance of a shared room uses, so grants signed with it
   * verify on all; the signing key stays as it is. Nothing when the default key was removed.
   */
  public synchronized void shareDefault(byte[] secret) {
    if (secret != null && secret.length >= MIN_SECRET_BYTES && keys.containsKey(DEFAULT_KEY)) {
      keys.put(DEFAULT_KEY, secret.clone());
    }
  }

  /** Makes {@code keyId} the signing key; earlier keys keep verifying. */
  public synchronized void install(String keyId, byte[] secret) {
    if (keyId == null || !keyId.matches("[A-Za-z0-9_.-]{1,32}")) {
      throw new IllegalArgumentException("keyId must be 1-32 characters of [A-Za-z0-9_.-]");
    }
    if (secret == null || secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "signing secret must be at least " + MIN_SECRET_BYTES + " bytes");
    }
    keys.put(keyId, secret.clone());
    signingId = keyId;
  }

  /** Stops verifying with {@code keyId}; the signing key cannot be removed. */
  public synchronized boolean remove(String keyId) {
    if (keyId.equals(signingId)) {
      throw new IllegalArgumentException("cannot remove the signing key; install another first");
    }
    return keys.remove(keyId) != null;
  }

  public String signingId() {
    return signingId;
  }

  byte[] secret(String keyId) {
    return keys.get(keyId);
  }
}
