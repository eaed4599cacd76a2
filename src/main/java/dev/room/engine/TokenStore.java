package dev.room.engine;

import java.util.function.Consumer;

/**
 * The token store: from a 128-bit token to its ticket. A token the line minted names its ticket's
 * record in its low 32 bits ({@link TicketRecords#find}), so finding it is one read; any other
 * token (imported, or filed where its named record was not free) is found through {@link
 * TokenTable}, the overflow index.
 *
 * <p>Leaving the store ({@link #remove}) unlists a ticket: its token no longer finds it and its
 * identity is released, but its record stays its own until it {@linkplain Ticket#end ends}, so the
 * code that retires it still reads its slot and state. Not thread-safe: the owning line's lock
 * guards it.
 */
final class TokenStore {
  /** Replaced whole by {@link #takeAll}: a caller reads it anew under each lock hold. */
  TicketRecords records = new TicketRecords();

  private TokenTable overflow = new TokenTable();

  private int size;

  /** Told when a ticket bound to an identity leaves the store (its ending); null for none. */
  private IdentityBook identities;

  /** Releases a ticket's identity whenever the ticket leaves this store. */
  void releaseTo(IdentityBook book) {
    this.identities = book;
  }

  /** Tickets whose token finds them. */
  int size() {
    return size;
  }

  /** Puts the record number {@code r} in a token's low 32 bits, keeping the other 96. */
  static long naming(long lo, int r) {
    return (lo & 0xFFFF_FFFF_0000_0000L) | (r & 0xFFFF_FFFFL);
  }

  /** The record a new ticket would take now, for a token minted to name it. */
  int nextRecord() {
    return records.next();
  }

  /** The listed record holding {@code hi, lo}, or -1. */
  int find(long hi, long lo) {
    int r = records.find(hi, lo);
    if (r >= 0 || overflow.size() == 0) {
      return r;
    }
    Ticket t = overflow.get(hi, lo);
    return t == null ? -1 : t.rec();
  }

  Ticket get(long hi, long lo) {
    int r = find(hi, lo);
    return r < 0 ? null : records.owner(r);
  }

  /**
   * A new ticket under {@code hi, lo}: in the record the token names when a ticket can take it (a
   * minted token names the next free one; a restored token the one it had), found directly, else in
   * the next free record and found through the overflow index; null, and nothing taken, when the
   * token is already here.
   */
  Ticket issue(long hi, long lo, long number) {
    if (find(hi, lo) >= 0) {
      return null;
    }
    int r = records.canTake((int) lo) ? (int) lo : records.next();
    Ticket t = new Ticket(records, r, number);
    records.take(r, t);
    list(t, hi, lo);
    return t;
  }

  /**
   * Unlists exactly {@code t}; returns false when it was not listed. Leaving the store ends the
   * ticket's standing, so its identity, if any, is released; the caller then ends the ticket.
   */
  boolean remove(Ticket t) {
    if (t.state() == Ticket.GONE || !unlist(t)) {
      return false;
    }
    if (identities != null) {
      identities.release(t);
    }
    return true;
  }

  /**
   * Files {@code t} under a new token, which must not be here; the ticket lives on (its identity
   * stays bound, its record is the same).
   */
  void rekey(Ticket t, long hi, long lo) {
    unlist(t);
    list(t, hi, lo);
  }

  private void list(Ticket t, long hi, long lo) {
    int r = t.rec();
    records.set(r, TicketRecords.HI, hi);
    records.set(r, TicketRecords.LO, lo);
    records.listed(r, true);
    if ((int) lo != r) {
      overflow.add(t);
    }
    size++;
  }

  private boolean unlist(Ticket t) {
    int r = t.rec();
    if (!records.listed(r)) {
      return false;
    }
    if ((int) records.get(r, TicketRecords.LO) != r) {
      overflow.remove(t);
    }
    records.listed(r, false);
    size--;
    return true;
  }

  /**
   * Every ticket in the store now. Copies references only; a caller that then works through the
   * copy across several lock holds checks each ticket is still listed (or not {@code GONE}).
   */
  Ticket[] snapshot() {
    Ticket[] out = new Ticket[size];
    int[] n = {0};
    records.forEachListed(t -> out[n[0]++] = t);
    return out;
  }

  void forEach(Consumer<Ticket> visitor) {
    records.forEachListed(visitor);
  }

  void clear() {
    records = new TicketRecords();
    overflow = new TokenTable();
    size = 0;
  }

  /**
   * Takes over {@code other}'s tickets (this store is empty), leaving {@code other} empty. The
   * tickets keep their records object, which moves here whole.
   */
  void takeAll(TokenStore other) {
    records = other.records;
    overflow = other.overflow;
    size = other.size;
    other.clear();
  }

  /** Checks the records, the overflow index and the count; returns what does not hold, or null. */
  String check() {
    String r = records.check();
    if (r != null) {
      return r;
    }
    String o = overflow.check();
    if (o != null) {
      return "overflow: " + o;
    }
    int[] n = {0, 0};
    records.forEachListed(
        t -> {
          n[0]++;
          if (get(t.hi(), t.lo()) != t) {
            n[1]++;
          }
        });
    if (n[1] > 0) {
      return n[1] + " tickets not found by their token";
    }
    return n[0] == size ? null : "holds " + n[0] + " != " + size;
  }
}
