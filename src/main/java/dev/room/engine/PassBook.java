package dev.room.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Consumer;

/**
 * The VIP passes granted: token to expiry, in an open-addressing table of {hi, lo, expiresAt}
 * triples in one {@code long[]}.
 *
 * <p>Why not a map: a {@code ConcurrentHashMap} needs a key object per check, and whether a status
 * poll with a pass cookie then allocated was up to escape analysis (32 B per check at 2 threads in
 * one JMH run). A check reads the table under a {@link StampedLock} optimistic stamp, so checks
 * take no lock, write nothing shared and allocate nothing; grants, sweeps and restores, which are
 * rare, take the write lock, and a check that overlapped one reads again under the read lock. A
 * torn read cannot fault: the table is read through one reference and every probe index is masked
 * to it.
 */
final class PassBook {
  /** Marks a free entry's expiry; a grant never stores it (see {@link #grant}). */
  private static final long FREE = Long.MIN_VALUE;

  private static final int MIN_SLOTS = 16;

  /** Passes as exported: by expiry, then token, the order the Redis line's pass set reads in. */
  private static final Comparator<long[]> PASS_ORDER =
      Comparator.<long[]>comparingLong(p -> p[2])
          .thenComparing(p -> p[0], Long::compareUnsigned)
          .thenComparing(p -> p[1], Long::compareUnsigned);

  private final StampedLock lock = new StampedLock();

  /** Slot k is {@code table[3k..3k+2]}: hi, lo, expiresAt ({@link #FREE} when empty). */
  private long[] table = empty(MIN_SLOTS);

  private int size;

  void grant(long hi, long lo, long expiresAt) {
    long stamp = lock.writeLock();
    try {
      if ((size + 1) * 2 > table.length / 3) {
        table = copy(table, table.length / 3 * 2, FREE);
      }
      if (put(table, hi, lo, stored(expiresAt))) {
        size++;
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** The pass's expiry, or 0 if there is none. */
  long expiry(long hi, long lo) {
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      long e = find(table, hi, lo);
      if (lock.validate(stamp)) {
        return e;
      }
    }
    stamp = lock.readLock();
    try {
      return find(table, hi, lo);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Drops the passes expired by {@code now}; returns how many. */
  int sweep(long now) {
    long stamp = lock.writeLock();
    try {
      int kept = 0;
      for (int i = 2; i < table.length; i += 3) {
        if (table[i] != FREE && table[i] > now) {
          kept++;
        }
      }
      int dropped = size - kept;
      if (dropped > 0) { // rebuilt rather than deleted in place: no tombstones, no shifts
        table = copy(table, slotsFor(kept), now);
        size = kept;
      }
      return dropped;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Hands every pass as {hi, lo, expiresAt} to {@code sink}, sorted: a table's order is not one a
   * restore could reproduce, so a round trip would reorder.
   */
  void export(Consumer<long[]> sink) {
    List<long[]> sorted = new ArrayList<>();
    long stamp = lock.readLock();
    try {
      for (int i = 0; i < table.length; i += 3) {
        if (table[i + 2] != FREE) {
          sorted.add(new long[] {table[i], table[i + 1], table[i + 2]});
        }
      }
    } finally {
      lock.unlockRead(stamp);
    }
    sorted.sort(PASS_ORDER);
    sorted.forEach(sink);
  }

  /** Reads {hi, lo, expiresAt} passes into a book of their own, for {@link #replace}. */
  static PassBook read(Iterator<long[]> passList) {
    PassBook read = new PassBook();
    while (passList.hasNext()) {
      long[] p = passList.next();
      read.grant(p[0], p[1], p[2]);
    }
    return read;
  }

  /** Takes over {@code restored}'s passes (a book no other thread has seen), dropping these. */
  void replace(PassBook restored) {
    long stamp = lock.writeLock();
    try {
      table = restored.table;
      size = restored.size;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** The expiry filed under the token in {@code t}, or 0. Bounded: a torn table cannot loop. */
  private static long find(long[] t, long hi, long lo) {
    int slots = t.length / 3;
    int mask = slots - 1;
    int k = home(hi, lo, mask);
    for (int n = 0; n < slots; n++, k = (k + 1) & mask) {
      int i = k * 3;
      long e = t[i + 2];
      if (e == FREE) {
        return 0;
      }
      if (t[i] == hi && t[i + 1] == lo) {
        return e;
      }
    }
    return 0;
  }

  /** Files the expiry under the token in {@code t}, which has a free slot; true when it is new. */
  private static boolean put(long[] t, long hi, long lo, long expiresAt) {
    int mask = t.length / 3 - 1;
    for (int k = home(hi, lo, mask); ; k = (k + 1) & mask) {
      int i = k * 3;
      boolean free = t[i + 2] == FREE;
      if (free || (t[i] == hi && t[i + 1] == lo)) {
        t[i] = hi;
        t[i + 1] = lo;
        t[i + 2] = expiresAt;
        return free;
      }
    }
  }

  /** A table of {@code slots} holding {@code from}'s passes that expire after {@code after}. */
  private static long[] copy(long[] from, int slots, long after) {
    long[] t = empty(slots);
    for (int i = 0; i < from.length; i += 3) {
      if (from[i + 2] != FREE && from[i + 2] > after) {
        put(t, from[i], from[i + 1], from[i + 2]);
      }
    }
    return t;
  }

  /** FREE is a time long past; the next one up is as expired and keeps the slot marked used. */
  private static long stored(long expiresAt) {
    return expiresAt == FREE ? FREE + 1 : expiresAt;
  }

  /** A power of two with room for {@code n} passes at half load. */
  private static int slotsFor(int n) {
    int slots = MIN_SLOTS;
    while (slots < 2L * n) {
      slots <<= 1;
    }
    return slots;
  }

  private static long[] empty(int slots) {
    long[] t = new long[slots * 3];
    for (int i = 2; i < t.length; i += 3) {
      t[i] = FREE;
    }
    return t;
  }

  /** Tokens are uniformly random; the hash only mixes the halves (as TokenTable's). */
  private static int home(long hi, long lo, int mask) {
    return (int) (TokenTable.hash(hi, lo) >>> 32) & mask;
  }
}
