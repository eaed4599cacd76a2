package dev.room.redis;

import java.util.Arrays;

/**
 * The Redis keys of one room. Every key carries the hash tag {@code {room:<id>}}, so a room lives
 * on one Redis Cluster shard (its scripts touch only that shard) and different rooms spread out.
 */
final class RoomKeys {
  /** The keys every script receives, in the order the scripts' {@code lib/keys.lua} names them. */
  private static final String[] NAMES = {
    "meta", "tk", "line", "heads", "gsize", "ready", "rdyat", "act", "unseen", "passes", "leases",
    "held", "owners", "here", "aoff", "ids", "moved", "hlog"
  };

  /** The restore staging keys, in the order the stage and commit scripts expect them. */
  private static final String[] STAGED = {
    "tk", "line", "heads", "gsize", "act", "unseen", "passes", "ids"
  };

  /** The session store's keys, after the shared ones (lib/sessions.lua names them). */
  private static final String[] SESSIONS = {"ses", "sest", "sesx"};

  private final String prefix;
  private final String[] all;
  private final String[] sessions;

  RoomKeys(String roomId) {
    if (roomId == null || roomId.isEmpty() || roomId.length() > 200) {
      throw new IllegalArgumentException("roomId must be 1 to 200 characters");
    }
    if (roomId.indexOf('{') >= 0 || roomId.indexOf('}') >= 0) {
      throw new IllegalArgumentException("roomId must not contain '{' or '}'");
    }
    prefix = "{room:" + roomId + "}:";
    all = new String[NAMES.length];
    for (int i = 0; i < NAMES.length; i++) {
      all[i] = prefix + NAMES[i];
    }
    sessions = Arrays.copyOf(all, all.length + SESSIONS.length);
    for (int i = 0; i < SESSIONS.length; i++) {
      sessions[all.length + i] = prefix + SESSIONS[i];
    }
  }

  /** The shared keys followed by the session store's. The array is shared: do not modify it. */
  String[] sessions() {
    return sessions;
  }

  /** The key of the secret the default signing key shares (RedisSessionStore.sharedSecret). */
  String signingSecret() {
    return prefix + "skey";
  }

  /** The shared keys, as every script's KEYS. The array is shared: do not modify it. */
  String[] all() {
    return all;
  }

  /** The room's hash-tagged prefix, for keys outside the scripts' (the join ledger's). */
  String prefix() {
    return prefix;
  }

  String passes() {
    return all[9];
  }

  /** The shared keys followed by the staging keys of the restore named {@code nonce}. */
  String[] withStaging(String nonce) {
    String[] keys = Arrays.copyOf(all, all.length + STAGED.length);
    for (int i = 0; i < STAGED.length; i++) {
      keys[all.length + i] = prefix + "restore:" + nonce + ":" + STAGED[i];
    }
    return keys;
  }
}
