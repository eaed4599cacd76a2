package dev.room.engine;

/**
 * Three bit sets over the line's slots (a ticket is in the slot, the ticket heads its group, the
 * ticket is present) with, for each, a Fenwick tree of the number of set bits per block of eight
 * 64-slot words.
 *
 * <p>Everything is in primitive arrays: at 16 million slots the head bits are 2 MB and their tree
 * 128 KB, which stays in the core's own cache while the line's tickets do not. A rank (set bits
 * before a slot) is a popcount over at most eight words (the one or two cache lines the slot's word
 * is in) plus a Fenwick prefix sum over blocks (about 15 reads, all cached); a select (the k-th set
 * bit) descends the same tree, then counts through one block's words. A tree per word would be
 * eight times the size: at 10 million waiting its lowest levels missed the core's cache on every
 * position. Not thread-safe: the owning line's lock guards it.
 */
final class SlotCounts {
  /**
   * Words per block of the trees: eight words are one or two cache lines of bits, summed by
   * popcount on the way, while the trees, an eighth of the size, stay in the CPU's own cache.
   */
  private static final int BLOCK_SHIFT = 3;

  private static final int BLOCK = 1 << BLOCK_SHIFT;

  final int words;
  final long[] used;
  final long[] heads;
  final long[] present;
  private final int[] usedTree;
  private final int[] headTree;
  private final int[] presentTree;

  SlotCounts(int words) {
    this.words = words;
    used = new long[words];
    heads = new long[words];
    present = new long[words];
    int blocks = (words + BLOCK - 1) >>> BLOCK_SHIFT;
    usedTree = new int[blocks + 1];
    headTree = new int[blocks + 1];
    presentTree = new int[blocks + 1];
  }

  /** A copy over {@code words} words, its word {@code w} this one's word {@code w + shift}. */
  SlotCounts moved(int words, int shift) {
    SlotCounts c = new SlotCounts(words);
    int n = Math.min(words, this.words - shift);
    System.arraycopy(used, shift, c.used, 0, n);
    System.arraycopy(heads, shift, c.heads, 0, n);
    System.arraycopy(present, shift, c.present, 0, n);
    build(c.used, c.usedTree);
    build(c.heads, c.headTree);
    build(c.present, c.presentTree);
    return c;
  }

  boolean isUsed(int slot) {
    return (used[slot >>> 6] & (1L << slot)) != 0;
  }

  boolean isHead(int slot) {
    return (heads[slot >>> 6] & (1L << slot)) != 0;
  }

  boolean isPresent(int slot) {
    return (present[slot >>> 6] & (1L << slot)) != 0;
  }

  /** Marks {@code slot} (free) used, with its head and present flags. */
  void put(int slot, boolean head, boolean here) {
    int w = slot >>> 6;
    long bit = 1L << slot;
    used[w] |= bit;
    add(usedTree, w, 1);
    if (head) {
      heads[w] |= bit;
      add(headTree, w, 1);
    }
    if (here) {
      present[w] |= bit;
      add(presentTree, w, 1);
    }
  }

  /** Frees {@code slot} (used), clearing its flags. */
  void take(int slot) {
    int w = slot >>> 6;
    long bit = 1L << slot;
    used[w] &= ~bit;
    add(usedTree, w, -1);
    setHead(slot, false);
    setPresent(slot, false);
  }

  void setHead(int slot, boolean on) {
    int w = slot >>> 6;
    long bit = 1L << slot;
    if (((heads[w] & bit) != 0) != on) {
      heads[w] ^= bit;
      add(headTree, w, on ? 1 : -1);
    }
  }

  void setPresent(int slot, boolean on) {
    int w = slot >>> 6;
    long bit = 1L << slot;
    if (((present[w] & bit) != 0) != on) {
      present[w] ^= bit;
      add(presentTree, w, on ? 1 : -1);
    }
  }

  /** Replaces word {@code w} of each set, keeping the trees' counts. */
  void rewrite(int w, long u, long h, long p) {
    add(usedTree, w, Long.bitCount(u) - Long.bitCount(used[w]));
    add(headTree, w, Long.bitCount(h) - Long.bitCount(heads[w]));
    add(presentTree, w, Long.bitCount(p) - Long.bitCount(present[w]));
    used[w] = u;
    heads[w] = h;
    present[w] = p;
  }

  /** The number of group heads in slots before {@code slot}, plus one if {@code slot} heads. */
  long headsThrough(int slot) {
    int w = slot >>> 6;
    return prefix(heads, headTree, w) + Long.bitCount(heads[w] & (-1L >>> (63 - (slot & 63))));
  }

  /** The number of used slots before {@code slot}. */
  int usedBefore(int slot) {
    int w = slot >>> 6;
    return prefix(used, usedTree, w) + Long.bitCount(used[w] & ((1L << slot) - 1));
  }

  /** The slot of the {@code k}-th (1-based) used slot, or -1 past the end. */
  int selectUsed(int k) {
    return select(used, usedTree, k);
  }

  /** The slot of the {@code k}-th (1-based) group head, or -1 past the end. */
  int selectHead(int k) {
    return select(heads, headTree, k);
  }

  /** The slot of the first present ticket, or -1 when none is. */
  int firstPresent() {
    return select(present, presentTree, 1);
  }

  /** The first used slot at or after {@code slot}, or -1. */
  int nextUsed(int slot) {
    if (slot >= words << 6) {
      return -1;
    }
    int w = slot >>> 6;
    long bits = used[w] & (-1L << slot);
    int end = Math.min(words, w + 4);
    while (bits == 0) { // a few words by hand, then the tree: gaps left by removals can be long
      if (++w == end) {
        return w == words ? -1 : selectUsed(prefix(used, usedTree, w) + 1);
      }
      bits = used[w];
    }
    return (w << 6) + Long.numberOfTrailingZeros(bits);
  }

  /** The last used slot at or before {@code slot}, or -1. */
  int prevUsed(int slot) {
    if (slot < 0) {
      return -1;
    }
    int w = slot >>> 6;
    long bits = used[w] & (-1L >>> (63 - (slot & 63)));
    int end = Math.max(-1, w - 4);
    while (bits == 0) {
      if (--w == end) {
        int before = w < 0 ? 0 : prefix(used, usedTree, w + 1);
        return before == 0 ? -1 : selectUsed(before);
      }
      bits = used[w];
    }
    return (w << 6) + 63 - Long.numberOfLeadingZeros(bits);
  }

  int headCount() {
    return prefix(heads, headTree, words);
  }

  int presentCount() {
    return prefix(present, presentTree, words);
  }

  /** The used count of words [0, w). */
  int usedInWords(int w) {
    return prefix(used, usedTree, w);
  }

  /** Checks every tree against its bits; returns what does not hold, or null. */
  String check() {
    for (int w = 0; w < words; w++) {
      if ((heads[w] & ~used[w]) != 0 || (present[w] & ~used[w]) != 0) {
        return "a flag on a free slot in word " + w;
      }
    }
    int[][] trees = {usedTree, headTree, presentTree};
    long[][] sets = {used, heads, present};
    for (int k = 0; k < 3; k++) {
      int[] fresh = new int[trees[k].length];
      build(sets[k], fresh);
      if (!java.util.Arrays.equals(fresh, trees[k])) {
        return "Fenwick tree " + k + " out of step with its bits";
      }
    }
    return null;
  }

  // ---- Fenwick trees over blocks of BLOCK words: tree[i] holds the counts of blocks
  // (i - lowbit(i), i]; a count within a block is a popcount of its words

  private static void add(int[] tree, int w, int d) {
    if (d != 0) {
      for (int i = (w >>> BLOCK_SHIFT) + 1; i < tree.length; i += i & -i) {
        tree[i] += d;
      }
    }
  }

  /** The set bits of words [0, w). */
  private static int prefix(long[] bits, int[] tree, int w) {
    int s = 0;
    for (int i = w >>> BLOCK_SHIFT; i > 0; i &= i - 1) {
      s += tree[i];
    }
    for (int j = w & -BLOCK; j < w; j++) {
      s += Long.bitCount(bits[j]);
    }
    return s;
  }

  private int select(long[] bits, int[] tree, int k) {
    if (k < 1) {
      return -1;
    }
    int blocks = tree.length - 1;
    int pos = 0;
    int rem = k;
    for (int step = Integer.highestOneBit(blocks); step > 0; step >>>= 1) {
      int next = pos + step;
      if (next <= blocks && tree[next] < rem) {
        pos = next;
        rem -= tree[next];
      }
    }
    int end = Math.min(words, (pos + 1) << BLOCK_SHIFT);
    for (int w = pos << BLOCK_SHIFT; w < end; w++) {
      long b = bits[w];
      int c = Long.bitCount(b);
      if (c >= rem) {
        for (int j = 1; j < rem; j++) {
          b &= b - 1;
        }
        return (w << 6) + Long.numberOfTrailingZeros(b);
      }
      rem -= c;
    }
    return -1;
  }

  /** Fills {@code tree} from {@code bits} in linear time. */
  private static void build(long[] bits, int[] tree) {
    for (int w = 0; w < bits.length; w++) {
      tree[(w >>> BLOCK_SHIFT) + 1] += Long.bitCount(bits[w]);
    }
    for (int i = 1; i < tree.length; i++) {
      int up = i + (i & -i);
      if (up < tree.length) {
        tree[up] += tree[i];
      }
    }
  }
}
