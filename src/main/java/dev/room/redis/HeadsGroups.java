package dev.room.redis;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The tie groups a {@link HeadsMirror} keeps: band 0's places below {@link HeadsMirror#SPAN} as
 * bits, with a Fenwick tree over the bits' words (a rank is a prefix sum and a popcount), and the
 * groups of the higher bands, which come first, by member. Each change sets a group present or
 * absent, so a change applied twice is applied once. Not thread-safe: the mirror's monitor guards
 * it.
 */
final class HeadsGroups {
  private static final long MAXBAND = Integer.MAX_VALUE;
  private long[] words = new long[64];
  private int[] tree = new int[65]; // 1-based: tree[i] sums the popcounts of words (i - lowbit, i]
  private final Set<String> higher = new HashSet<>();

  /** A heads member: 8 hex digits of MAXBAND - band, then 16 of the place. */
  void add(String member) {
    long band = MAXBAND - Long.parseLong(member, 0, 8, 16);
    if (band == 0) {
      long place = Long.parseUnsignedLong(member, 8, 24, 16);
      if (place >= 0 && place < HeadsMirror.SPAN) {
        set(0, place, true);
      }
    } else if (band > 0) {
      higher.add(member);
    }
  }

  void set(long band, long place, boolean present) {
    if (band == 0) {
      if (place >= 0 && place < HeadsMirror.SPAN) {
        setBit((int) place, present);
      }
    } else if (band > 0) {
      String member = String.format("%08x%016x", MAXBAND - band, place);
      if (present) {
        higher.add(member);
      } else {
        higher.remove(member);
      }
    }
  }

  /** The groups kept: higher bands' and band 0's below SPAN. */
  long size() {
    return higher.size() + prefix(words.length);
  }

  /** The groups ahead of band 0's group at place (a place below SPAN). */
  long before(long place) {
    int w = (int) (place >>> 6);
    long n = higher.size();
    if (w >= words.length) {
      return n + prefix(words.length);
    }
    return n + prefix(w) + Long.bitCount(words[w] & ((1L << (place & 63)) - 1));
  }

  void replace(HeadsGroups other) {
    words = other.words;
    tree = other.tree;
    higher.clear();
    higher.addAll(other.higher);
  }

  private void setBit(int place, boolean present) {
    int w = place >>> 6;
    if (w >= words.length) {
      if (!present) {
        return;
      }
      grow(w);
    }
    long bit = 1L << (place & 63);
    if (((words[w] & bit) != 0) == present) {
      return;
    }
    words[w] ^= bit;
    for (int i = w + 1, d = present ? 1 : -1; i < tree.length; i += i & -i) {
      tree[i] += d;
    }
  }

  /** The bits set in words 0 to w - 1. */
  private long prefix(int w) {
    long n = 0;
    for (int i = w; i > 0; i -= i & -i) {
      n += tree[i];
    }
    return n;
  }

  private void grow(int w) {
    int size = words.length;
    while (size <= w) {
      size *= 2;
    }
    words = Arrays.copyOf(words, size);
    tree = new int[size + 1];
    for (int i = 1; i <= size; i++) {
      tree[i] += Long.bitCount(words[i - 1]);
      int up = i + (i & -i);
      if (up <= size) {
        tree[up] += tree[i];
      }
    }
  }
}
