package dev.room.engine;

import dev.room.spi.Identities;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * One place per identity: which live ticket each identity holds, and the tokens a place moved away
 * from.
 *
 * <p>Identities are kept only as {@linkplain Identities salted hashes}, under a salt made on first
 * use (or restored with an import). An entry lives exactly as long as its ticket: the token store
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

  /**
   * The identity each bound ticket holds: here, not in a field of every ticket, since most rooms
   * bind none and a field more would round every ticket up from 120 to 128 bytes.
   */
  private Map<Ticket, String> identityOf = new IdentityHashMap<>();

  /** Stubs of moved tokens: only their token and, as {@code lastActivity}, when they moved. */
  private final TokenStore moved = new TokenStore();

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
    identityOf.put(t, hash);
    holders.put(hash, t);
  }

  /** The salted hash of the identity {@code t} is bound to, or null. */
  String of(Ticket t) {
    return identityOf.isEmpty() ? null : identityOf.get(t);
  }

  /** The ticket ended: its identity, if it has one, is free. */
  void release(Ticket t) {
    if (!identityOf.isEmpty()) {
      String hash = identityOf.remove(t);
      if (hash != null) {
        holders.remove(hash, t);
      }
    }
  }

  /** The place held under {@code hi, lo} went to another device at {@code now}. */
  void moved(long hi, long lo, long now) {
    Ticket stub = moved.issue(hi, lo, 0);
    if (stub != null) { // null: moved before, and already remembered
      stub.lastActivity(now);
    }
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
      if (now - stub.lastActivity() >= ttl) {
        moved.remove(stub);
        stub.end();
      }
    }
  }

  /**
   * After an import: the restored tickets' identities ({@code bound}, which this book takes over),
   * under the export's salt.
   */
  void restore(String restoredSalt, Map<Ticket, String> bound) {
    holders.clear();
    moved.clear();
    salt = restoredSalt;
    identityOf = bound;
    bound.forEach((t, hash) -> holders.put(hash, t));
  }

  /**
   * Checks that each ticket in {@code tokens} bound to an identity is that identity's holder, and
   * that no binding outlived its ticket; for tests.
   *
   * @throws IllegalStateException naming the first invariant that does not hold
   */
  void checkInvariants(TokenStore tokens) {
    int[] bound = {0};
    tokens.forEach(
        t -> {
          String identity = of(t);
          if (identity != null) {
            if (holder(identity) != t) {
              throw new IllegalStateException("a ticket's identity is not bound to it");
            }
            bound[0]++;
          }
        });
    if (bound[0] != holders.size() || bound[0] != identityOf.size()) {
      throw new IllegalStateException("an identity is bound to a ticket that ended");
    }
  }
}
