package dev.room.engine;

import dev.room.spi.Identities;
import java.util.HashMap;
import java.util.Map;

/**
 * One place per identity: which live ticket each identity holds, and the tokens a place moved away
 * from.
 *
 * <p>Identities are kept only as {@linkplain Identities salted hashes}, under a salt made on first
 * use (or restored with an import). An entry lives exactly as long as its ticket: the token table
 * releases it when the ticket leaves (admitted, removed, evicted, expired). When the identity joins
 * again from another device the place is re-filed under the new device's token and the old token is
 * remembered here as moved, so that device's next poll learns where its place went; a moved token
 * is forgotten after the policy's TTL (a page told it moved stops polling; a reload there arrives
 * with a fresh token and takes the place back).
 *
 * <p>Not thread-safe: the owning line's lock guards it.
 */
final class IdentityBook {
  private final Map<String, Ticket> holders = new HashMap<>();

  /** Stubs of moved tokens: only their token and, as {@code lastActivity}, when they moved. */
  private final TokenTable moved = new TokenTable();

  private String salt;

  /**
   * The hash of an identity, given its {@linkplain Identities#prehash prehash}, under this room's
   * salt, making the salt if there is none.
   */
  String hash(String prehash) {
    if (salt == null) {
      salt = Identities.newSalt();
    }
    return Identities.hash(salt, prehash);
  }

  /** The salt, or null while no identity was hashed. */
  String salt() {
    return salt;
  }

  /** The live ticket bound to {@code hash}, or null. */
  Ticket holder(String hash) {
    return holders.get(hash);
  }

  void bind(Ticket t, String hash) {
    t.identity = hash;
    holders.put(hash, t);
  }

  /** The ticket ended: its identity is free. */
  void release(Ticket t) {
    holders.remove(t.identity, t);
  }

  /** The place held under {@code hi, lo} went to another device at {@code now}. */
  void moved(long hi, long lo, long now) {
    Ticket stub = new Ticket(hi, lo, 0);
    stub.lastActivity = now;
    moved.add(stub);
  }

  /** Whether {@code hi, lo} is a token whose place moved away. Allocates nothing. */
  boolean isMoved(long hi, long lo) {
    return moved.size() != 0 && moved.get(hi, lo) != null;
  }

  /** Forgets the moved tokens older than {@code ttl}. */
  void sweep(long now, long ttl) {
    if (moved.size() == 0) {
      return;
    }
    for (Ticket stub : moved.snapshot()) {
      if (now - stub.lastActivity >= ttl) {
        moved.remove(stub);
      }
    }
  }

  /** After an import: the restored tickets' identities, under the export's salt. */
  void restore(String restoredSalt, TokenTable tokens) {
    holders.clear();
    moved.clear();
    salt = restoredSalt;
    tokens.forEach(
        t -> {
          if (t.identity != null) {
            holders.put(t.identity, t);
          }
        });
  }

  /** Live bindings, for invariant checks. */
  int size() {
    return holders.size();
  }
}
