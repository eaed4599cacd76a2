package dev.room.engine;

import java.util.Arrays;

/**
 * Where each waiting ticket sits: a slot in an array kept in line order, with gaps (a packed memory
 * array), and the {@link SlotCounts} over the slots.
 *
 * <p>A ticket keeps its slot as {@code offset + index}, so the array can slide towards its front
 * (the line drains at the front and grows at the back) by moving references only: no ticket is
 * written. Arrivals take the slot after the last; a ticket that sorts between two others (a tie, a
 * rank, a lapsed offer back at its old place) takes a free slot between them, and when there is
 * none the smallest aligned window around them that is sparse enough (its allowed density falls
 * from 1 for a 64-slot word to 3/4 for the whole array) is spread out evenly, which costs O(log² n)
 * slot moves amortised. When the back is reached the array slides (a quarter or more free at the
 * front), doubles (over half full) or is laid out afresh, three quarters full; it halves when under
 * an eighth full. Arrivals leave a quarter of every word free (see {@link #FILL}).
 *
 * <p>Not thread-safe: the owning line's lock guards it.
 */
final class LineSlots {
  /** The largest capacity: a ticket's slot, offset included, stays an {@code int}. */
  private static final int MAX_CAPACITY = 1 << 30;

  /**
   * Arrivals fill this many slots of each 64-slot word: the rest is room for the tickets that later
   * sort between them (ties, ranks, lapsed offers), so the first of those spreads one word at most,
   * where a line grown densely at the back would have to spread out all of it.
   */
  private static final int FILL = 48;

  private final int minCapacity;
  Ticket[] at;
  SlotCounts counts;
  private int offset;
  private int size;
  private Ticket[] scratch = new Ticket[64];
  private boolean[] scratchHead = new boolean[64];

  LineSlots(int minCapacity) {
    this.minCapacity = Math.max(64, Integer.highestOneBit(Math.max(1, minCapacity - 1)) << 1);
    clear();
  }

  void clear() {
    at = new Ticket[minCapacity];
    counts = new SlotCounts(minCapacity >>> 6);
    offset = 0;
    size = 0;
  }

  void takeAll(LineSlots other) {
    at = other.at;
    counts = other.counts;
    offset = other.offset;
    size = other.size;
    other.clear();
  }

  int size() {
    return size;
  }

  int capacity() {
    return at.length;
  }

  /** The index of {@code t}'s slot, which must be this array's. */
  int index(Ticket t) {
    int i = t.slot() - offset;
    if (t.slot() == Ticket.NO_SLOT || i < 0 || i >= at.length || at[i] != t) {
      throw new IllegalStateException("ticket not in the line index");
    }
    return i;
  }

  /**
   * The index of a waiting ticket's {@code slot} without reading the slot array or the bits (a
   * position's path, where every read is a likely cache miss): checks only that it is in range.
   */
  int slotIndex(int slot) {
    int i = slot - offset;
    if (slot == Ticket.NO_SLOT || i < 0 || i >= at.length) {
      throw new IllegalStateException("ticket not in the line index");
    }
    return i;
  }

  boolean holds(Ticket t) {
    int i = t.slot() - offset;
    return t.slot() != Ticket.NO_SLOT && i >= 0 && i < at.length && at[i] == t;
  }

  /** The ticket at slot index {@code i}, or null for -1. */
  Ticket ticket(int i) {
    return i < 0 ? null : at[i];
  }

  void put(Ticket t, int i, boolean head) {
    at[i] = t;
    t.slot(offset + i);
    counts.put(i, head, !t.away());
    size++;
  }

  void take(Ticket t, int i) {
    at[i] = null;
    t.slot(Ticket.NO_SLOT);
    counts.take(i);
    size--;
    if (at.length > minCapacity && size < at.length >>> 3) {
      relayout(at.length >>> 1);
    }
  }

  /**
   * A free slot index strictly between {@code pred}'s and {@code succ}'s (either null for the
   * ends), making room if there is none; slots of other tickets may move.
   */
  int room(Ticket pred, Ticket succ) {
    while (true) {
      int a = pred == null ? -1 : index(pred);
      if (succ == null) { // an arrival: a slot after the last, a quarter of each word kept free
        int i = (a + 1 & 63) < FILL ? a + 1 : (a | 63) + 1;
        if (i < at.length) {
          return i;
        }
        makeRoomAtBack();
        continue;
      }
      int b = index(succ);
      if (b - a > 1) {
        return (a + b) >>> 1; // the middle, so that later ones between them fit too
      }
      int hole = spreadAround(Math.max(a, 0), a);
      if (hole >= 0) {
        return hole;
      }
      if (crowded()) {
        grow();
      } else {
        relayout(at.length);
      }
    }
  }

  /**
   * Spreads the smallest aligned window around slot {@code i} whose density allows one more, with a
   * hole just after slot {@code after}; returns the hole, or -1 when no window is sparse enough.
   */
  private int spreadAround(int i, int after) {
    int levels = Integer.numberOfTrailingZeros(at.length >>> 6);
    for (int w = 64, level = 0; w <= at.length; w <<= 1, level++) {
      int lo = i & -w;
      int used = counts.usedInWords((lo + w) >>> 6) - counts.usedInWords(lo >>> 6);
      double allowed = levels == 0 ? 1 : 1 - 0.25 * level / levels;
      if (used + 1 <= allowed * w && used + 1 <= w) {
        return spread(lo, lo + w, w, after);
      }
    }
    return -1;
  }

  /**
   * Lays the tickets of slots [lo, hi) out evenly over [lo, lo + len), leaving a hole just after
   * slot {@code after} when it is at least {@code lo - 1}; returns the hole or -1.
   */
  private int spread(int lo, int hi, int len, int after) {
    boolean withHole = after >= lo - 1;
    int m = 0;
    int hole = -1;
    for (int i = counts.nextUsed(lo); i >= 0 && i < hi; i = counts.nextUsed(i + 1)) {
      if (withHole && hole < 0 && i > after) {
        hole = m++;
      }
      scratch = ensure(scratch, m + 1);
      scratchHead = ensure(scratchHead, m + 1);
      scratch[m] = at[i];
      scratchHead[m] = counts.isHead(i);
      m++;
    }
    if (withHole && hole < 0) {
      hole = m++;
    }
    Arrays.fill(at, lo, hi, null);
    for (int w = lo >>> 6; w < hi >>> 6; w++) {
      counts.rewrite(w, 0, 0, 0);
    }
    int holeAt = -1;
    long u = 0;
    long h = 0;
    long p = 0;
    int word = lo >>> 6;
    for (int k = 0; k < m; k++) {
      int i = lo + (int) ((long) k * len / m);
      if (i >>> 6 != word) {
        counts.rewrite(word, u, h, p);
        u = h = p = 0;
        word = i >>> 6;
      }
      if (k == hole) {
        holeAt = i;
        continue;
      }
      Ticket t = scratch[k];
      scratch[k] = null;
      at[i] = t;
      t.slot(offset + i);
      u |= 1L << i;
      h |= scratchHead[k] ? 1L << i : 0;
      p |= t.away() ? 0 : 1L << i;
    }
    counts.rewrite(word, u, h, p);
    return holeAt;
  }

  private void makeRoomAtBack() {
    int first = counts.selectUsed(1);
    if (first >= 64 && first >= at.length >>> 2) {
      slide(first & -64);
    } else if (crowded()) {
      grow();
    } else {
      relayout(at.length);
    }
  }

  /** Over half full, or too full for a fresh layout to leave a free word at the back. */
  private boolean crowded() {
    return size + 1 > (at.length >>> 1) || (long) size * 4 / 3 + 128 > at.length;
  }

  /** Moves every slot {@code d} (a multiple of 64) towards the front; tickets keep their slot. */
  private void slide(int d) {
    System.arraycopy(at, d, at, 0, at.length - d);
    Arrays.fill(at, at.length - d, at.length, null);
    counts = counts.moved(counts.words, d >>> 6);
    offset += d;
    if (offset > MAX_CAPACITY) {
      relayout(at.length); // renumbers from zero before a slot could overflow
    }
  }

  private void grow() {
    if (at.length >= MAX_CAPACITY) {
      throw new IllegalStateException("line index full at " + size + " tickets");
    }
    at = Arrays.copyOf(at, at.length << 1);
    counts = counts.moved(at.length >>> 6, 0);
  }

  /** Lays every ticket out afresh over {@code capacity} slots from zero, a quarter kept free. */
  private void relayout(int capacity) {
    Ticket[] old = at;
    SlotCounts oldCounts = counts;
    int len = Math.min(capacity, Math.max(64, (int) ((long) size * 4 / 3 + 63) & -64));
    at = new Ticket[capacity];
    SlotCounts fresh = new SlotCounts(capacity >>> 6);
    int k = 0;
    for (int i = oldCounts.nextUsed(0); i >= 0; i = oldCounts.nextUsed(i + 1)) {
      Ticket t = old[i];
      int j = (int) ((long) k++ * len / size);
      at[j] = t;
      t.slot(j);
      fresh.used[j >>> 6] |= 1L << j;
      fresh.heads[j >>> 6] |= oldCounts.isHead(i) ? 1L << j : 0;
      fresh.present[j >>> 6] |= t.away() ? 0 : 1L << j;
    }
    offset = 0;
    counts = fresh.moved(fresh.words, 0);
  }

  private static Ticket[] ensure(Ticket[] a, int n) {
    return n <= a.length ? a : Arrays.copyOf(a, Math.max(n, a.length * 2));
  }

  private static boolean[] ensure(boolean[] a, int n) {
    return n <= a.length ? a : Arrays.copyOf(a, Math.max(n, a.length * 2));
  }

  /** Checks slots against tickets and counts; returns what does not hold, or null. */
  String check() {
    String c = counts.check();
    if (c != null) {
      return c;
    }
    int n = 0;
    for (int i = 0; i < at.length; i++) {
      Ticket t = at[i];
      if ((t != null) != counts.isUsed(i)) {
        return "used bit of slot " + i;
      }
      if (t != null) {
        n++;
        if (t.slot() != offset + i) {
          return "a ticket's slot";
        }
        if (counts.isPresent(i) == t.away()) {
          return "present flag";
        }
      }
    }
    return n == size ? null : "slots hold " + n + " != " + size;
  }
}
