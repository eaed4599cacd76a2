package dev.room.engine;

/**
 * An open-addressing hash table from a 128-bit token to its ticket: the {@link TokenStore}'s index
 * of the tokens that do not name their own record (imported ones, and a few others).
 *
 * <p>Tokens are uniformly random, so their low bits are a good hash and linear probing stays short.
 * Deletion shifts later entries back instead of leaving tombstones, so a flood of short-lived
 * tokens cannot degrade lookups. Lookups allocate nothing. Not thread-safe: the owning line's lock
 * guards it.
 *
 * <p>Beside each entry is a byte: four bits of the token's hash that the slot number does not use,
 * and the entry's distance from its home slot (15 meaning 15 or more). Why: at 10 million waiting
 * every ticket read is a cache miss, and the table used to read one for each entry it looked at. A
 * lookup now dereferences an entry only when its four bits match (one in sixteen of the others),
 * and a deletion's backward shift decides from the distances which later entries move, without
 * reading their tickets to find their homes (about one ticket per removal at 1 million, whose table
 * is half full). The byte array costs one byte a slot, 3.4 bytes a ticket at 10 million (table at
 * load 0.3); it is read at the same index as the entry, so its cache miss overlaps the entry's.
 */
final class TokenTable {
  private static final int MIN_CAPACITY = 64;

  private static final int FAR = 15;

  private Ticket[] slots = new Ticket[MIN_CAPACITY];

  /** Per slot: distance from home (bits 4-7, {@link #FAR} = that or more) and hash bits (0-3). */
  private byte[] tags = new byte[MIN_CAPACITY];

  private int size;

  int size() {
    return size;
  }

  Ticket get(long hi, long lo) {
    Ticket[] s = slots;
    byte[] g = tags;
    int mask = s.length - 1;
    long h = hash(hi, lo);
    int bits = bitsOf(h);
    for (int i = home(h, mask); ; i = (i + 1) & mask) {
      Ticket t = s[i];
      if (t == null) {
        return null;
      }
      if ((g[i] & 0xF) == bits && t.lo() == lo && t.hi() == hi) {
        return t;
      }
    }
  }

  /** Adds {@code t}; returns false (and adds nothing) when its token is already present. */
  boolean add(Ticket t) {
    if ((size + 1) * 2 > slots.length) {
      resize(slots.length * 2);
    }
    if (get(t.hi(), t.lo()) != null) {
      return false;
    }
    place(slots, tags, t);
    size++;
    return true;
  }

  /** Removes exactly {@code t} (identity); returns false when it was not present. */
  boolean remove(Ticket t) {
    Ticket[] s = slots;
    int mask = s.length - 1;
    int i = home(hash(t.hi(), t.lo()), mask);
    while (s[i] != t) {
      if (s[i] == null) {
        return false;
      }
      i = (i + 1) & mask;
    }
    // Backward-shift deletion (Knuth 6.4, algorithm R): an entry moves into the hole unless its
    // home lies after the hole, that is, unless it is fewer steps from home than from the hole.
    byte[] g = tags;
    int hole = i;
    for (int j = (hole + 1) & mask; s[j] != null; j = (j + 1) & mask) {
      int d = (g[j] & 0xFF) >>> 4;
      if (d == FAR) {
        d = (j - home(hash(s[j].hi(), s[j].lo()), mask)) & mask;
      }
      int gap = (j - hole) & mask;
      if (d >= gap) {
        s[hole] = s[j];
        g[hole] = tag(d - gap, g[j]);
        hole = j;
      }
    }
    s[hole] = null;
    g[hole] = 0;
    size--;
    if (s.length > MIN_CAPACITY && size * 8 < s.length) {
      resize(s.length / 2);
    }
    return true;
  }

  /** Checks every entry's tag, and that no free slot lies between an entry and its home. */
  String check() {
    int mask = slots.length - 1;
    int n = 0;
    for (int i = 0; i < slots.length; i++) {
      Ticket t = slots[i];
      if (t == null) {
        continue;
      }
      n++;
      long h = hash(t.hi(), t.lo());
      int d = (i - home(h, mask)) & mask;
      if (tags[i] != tag(d, (byte) bitsOf(h))) {
        return "tag of slot " + i;
      }
      for (int j = home(h, mask); j != i; j = (j + 1) & mask) {
        if (slots[j] == null) {
          return "a free slot before slot " + i + " in its probe run";
        }
      }
    }
    return n == size ? null : "holds " + n + " != " + size;
  }

  private void resize(int capacity) {
    Ticket[] s = new Ticket[capacity];
    byte[] g = new byte[capacity];
    for (Ticket t : slots) {
      if (t != null) {
        place(s, g, t);
      }
    }
    slots = s;
    tags = g;
  }

  /** Files {@code t}, whose token is not in {@code s}, at the first free slot from its home. */
  private static void place(Ticket[] s, byte[] g, Ticket t) {
    int mask = s.length - 1;
    long h = hash(t.hi(), t.lo());
    int home = home(h, mask);
    int i = home;
    while (s[i] != null) {
      i = (i + 1) & mask;
    }
    s[i] = t;
    g[i] = (byte) (Math.min(FAR, (i - home) & mask) << 4 | bitsOf(h));
  }

  /** A tag at {@code distance} from home, with the hash bits of {@code tag}. */
  private static byte tag(int distance, byte tag) {
    return (byte) (Math.min(FAR, distance) << 4 | (tag & 0xF));
  }

  static long hash(long hi, long lo) {
    return (lo ^ (hi >>> 29)) * 0x9E3779B97F4A7C15L;
  }

  /** The home slot: high bits of the hash. */
  static int home(long hash, int mask) {
    return (int) (hash >>> 32) & mask;
  }

  /** The four bits kept beside the entry: low bits of the hash, which no table size uses. */
  private static int bitsOf(long hash) {
    return (int) hash & 0xF;
  }
}
