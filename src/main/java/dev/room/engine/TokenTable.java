package dev.room.engine;

import java.util.function.Consumer;

/**
 * The token store: an open-addressing hash table from a 128-bit token to its ticket.
 *
 * <p>Tokens are uniformly random, so their low bits are a good hash and linear probing stays short.
 * Deletion shifts later entries back instead of leaving tombstones, so a flood of short-lived
 * tokens cannot degrade lookups. Lookups allocate nothing. Not thread-safe: the owning line's lock
 * guards it.
 */
final class TokenTable {
  private static final int MIN_CAPACITY = 64;

  private Ticket[] slots = new Ticket[MIN_CAPACITY];
  private int size;

  /** Told when a ticket bound to an identity leaves the table (its ending); null for none. */
  private IdentityBook identities;

  /** Releases a ticket's identity whenever the ticket leaves this table. */
  void releaseTo(IdentityBook book) {
    this.identities = book;
  }

  int size() {
    return size;
  }

  Ticket get(long hi, long lo) {
    Ticket[] s = slots;
    int mask = s.length - 1;
    for (int i = index(hi, lo, mask); ; i = (i + 1) & mask) {
      Ticket t = s[i];
      if (t == null) {
        return null;
      }
      if (t.lo == lo && t.hi == hi) {
        return t;
      }
    }
  }

  /** Adds {@code t}; returns false (and adds nothing) when its token is already present. */
  boolean add(Ticket t) {
    if ((size + 1) * 2 > slots.length) {
      resize(slots.length * 2);
    }
    Ticket[] s = slots;
    int mask = s.length - 1;
    int i = index(t.hi, t.lo, mask);
    while (s[i] != null) {
      if (s[i].lo == t.lo && s[i].hi == t.hi) {
        return false;
      }
      i = (i + 1) & mask;
    }
    s[i] = t;
    size++;
    return true;
  }

  /**
   * Removes exactly {@code t} (identity); returns false when it was not present. Leaving the table
   * ends the ticket, so its identity, if any, is released.
   */
  boolean remove(Ticket t) {
    if (!unlink(t)) {
      return false;
    }
    if (identities != null) {
      identities.release(t);
    }
    return true;
  }

  /**
   * Files {@code t} under a new token, which must not be in the table; the ticket lives on (its
   * identity stays bound).
   */
  void rekey(Ticket t, long hi, long lo) {
    unlink(t);
    t.hi = hi;
    t.lo = lo;
    add(t);
  }

  private boolean unlink(Ticket t) {
    Ticket[] s = slots;
    int mask = s.length - 1;
    int i = index(t.hi, t.lo, mask);
    while (s[i] != t) {
      if (s[i] == null) {
        return false;
      }
      i = (i + 1) & mask;
    }
    // Backward-shift deletion (Knuth 6.4, algorithm R).
    int hole = i;
    for (int j = (hole + 1) & mask; s[j] != null; j = (j + 1) & mask) {
      int home = index(s[j].hi, s[j].lo, mask);
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        s[hole] = s[j];
        hole = j;
      }
    }
    s[hole] = null;
    size--;
    if (s.length > MIN_CAPACITY && size * 8 < s.length) {
      resize(s.length / 2);
    }
    return true;
  }

  /**
   * Every ticket in the table now, in slot order. Copies references only, so it is a straight pass
   * over the slot array however many tickets there are; a caller that then works through the copy
   * across several lock holds is unaffected by the shifts and rehashes its own retirements cause (a
   * scan by slot index across holds would skip the tickets those moved behind it).
   */
  Ticket[] snapshot() {
    Ticket[] out = new Ticket[size];
    int n = 0;
    for (Ticket t : slots) {
      if (t != null) {
        out[n++] = t;
      }
    }
    return out;
  }

  void forEach(Consumer<Ticket> visitor) {
    for (Ticket t : slots) {
      if (t != null) {
        visitor.accept(t);
      }
    }
  }

  void clear() {
    slots = new Ticket[MIN_CAPACITY];
    size = 0;
  }

  /** Takes over {@code other}'s tickets (this table is empty), leaving {@code other} empty. */
  void takeAll(TokenTable other) {
    slots = other.slots;
    size = other.size;
    other.clear();
  }

  private void resize(int capacity) {
    Ticket[] old = slots;
    Ticket[] s = new Ticket[capacity];
    int mask = capacity - 1;
    for (Ticket t : old) {
      if (t != null) {
        int i = index(t.hi, t.lo, mask);
        while (s[i] != null) {
          i = (i + 1) & mask;
        }
        s[i] = t;
      }
    }
    slots = s;
  }

  private static int index(long hi, long lo, int mask) {
    long h = lo ^ (hi >>> 29);
    h *= 0x9E3779B97F4A7C15L;
    return (int) (h >>> 32) & mask;
  }
}
