package dev.room.engine;

/**
 * The poll-hot half of every ticket: one 64-byte record per ticket in chunked {@code long[]}s,
 * addressed by a record number that a ticket's token carries in its low 32 bits.
 *
 * <p>Why: at 10 million waiting every read a poll makes of a client's own data is a cache miss. A
 * token looked up in a hash table and then the ticket it names cost two dependent misses; a token
 * that names its record costs one, and the record holds everything a waiting client's poll reads
 * and writes (token, liveness clock, rate-limit clock, cookie clock, slot, state and flags). The
 * ticket object keeps the cold fields (ordering key, rank, client key, ready-list links) and
 * reaches its hot ones through this store.
 *
 * <p>Layout: record {@code r} is eight longs at {@link #BASE} {@code + 8 * (r & 0xFFFF)} of chunk
 * {@code r >>> 16}. A full chunk holds {@link #PER_CHUNK} records, so with its array header it is
 * exactly 4 MiB: G1 gives it whole regions (no humongous tail wasted) starting on a region
 * boundary, where {@link #BASE} puts every record on a cache line of its own. The first chunk
 * starts small and grows in place, so a small room pays for a few records, not 4 MiB.
 *
 * <p>Free records are linked both ways into a free list (so a restored token can take the record it
 * names wherever that stands in the list); a record is in use from {@link #take} until {@link
 * #free}. Its {@link #LISTED} bit says whether its token finds it (a ticket removed from the token
 * store keeps its record, and so its fields, until it ends). Not thread-safe: the owning line's
 * lock guards it.
 */
final class TicketRecords {
  static final int HI = 0;
  static final int LO = 1;
  static final int LAST_ACTIVITY = 2;
  static final int ISSUED_AT = 3;
  static final int LAST_POLL = 4;
  static final int COOKIES_SENT_AT = 5;
  static final int READY_AT = 6;

  /** A free record's previous one in the free list (a field no free record otherwise uses). */
  private static final int PREV = LAST_ACTIVITY;

  /** Slot (bits 0-31), state (32-39), flags (40-47), listed (48); a free record's next in 0-31. */
  static final int WORD = 7;

  private static final int STATE_SHIFT = 32;
  private static final int FLAGS_SHIFT = 40;
  static final long LISTED = 1L << 48;

  private static final int CHUNK_BITS = 16;
  private static final int MASK = (1 << CHUNK_BITS) - 1;

  /** Records in a full chunk: one short of 2^16, so the chunk and its header make 4 MiB. */
  static final int PER_CHUNK = MASK;

  /** Longs before the first record: a 16-byte array header plus 48 bytes make 64. */
  private static final int BASE = 6;

  private static final int FIRST = 64;

  private long[][] chunks = new long[0][];
  private Ticket[][] owners = new Ticket[0][];
  private int freeHead = -1;
  private int used;

  /** Records in use (listed or not). */
  int used() {
    return used;
  }

  /**
   * The record {@code lo} names when it holds the token {@code hi, lo} and is listed, else -1. One
   * read of the record: the chunk table and each chunk's header stay in cache.
   */
  int find(long hi, long lo) {
    int r = (int) lo;
    int c = r >>> CHUNK_BITS;
    long[][] ch = chunks;
    if (c >= ch.length) {
      return -1;
    }
    long[] k = ch[c];
    int o = BASE + ((r & MASK) << 3);
    if (o + WORD >= k.length || k[o + HI] != hi || k[o + LO] != lo || (k[o + WORD] & LISTED) == 0) {
      return -1;
    }
    return r;
  }

  /** The record a new ticket would take now: the free list's head, made if there is none. */
  int next() {
    if (freeHead < 0) {
      grow();
    }
    return freeHead;
  }

  /**
   * Whether a ticket can take record {@code r}, the one its token names though the line did not
   * mint it (a token restored after a restart names the record it had): {@code r} is free, or
   * beyond the records made so far but within twice those in use, and then made. So a restored
   * line's polls stay one read, and a foreign token's random number makes nothing.
   */
  boolean canTake(int r) {
    if (r < 0 || (r & MASK) == MASK || r >= 2L * used + 2L * PER_CHUNK) {
      return false;
    }
    while (!exists(r)) {
      grow();
    }
    return owner(r) == null;
  }

  private boolean exists(int r) {
    int c = r >>> CHUNK_BITS;
    return c < chunks.length && (r & MASK) < capacity(chunks[c]);
  }

  /**
   * Takes free record {@code r} for {@code t}, out of the free list wherever it stands in it (the
   * list is linked both ways); the record is zeroed, its slot {@code NO_SLOT}.
   */
  void take(int r, Ticket t) {
    long[] k = chunks[r >>> CHUNK_BITS];
    int o = BASE + ((r & MASK) << 3);
    int nx = (int) k[o + WORD];
    int pv = (int) k[o + PREV];
    if (pv >= 0) {
      link(pv, WORD, nx);
    } else {
      freeHead = nx;
    }
    if (nx >= 0) {
      link(nx, PREV, pv);
    }
    k[o + PREV] = 0;
    k[o + WORD] = Ticket.NO_SLOT & 0xFFFF_FFFFL; // in no index yet, as a position read would see
    owners[r >>> CHUNK_BITS][r & MASK] = t;
    used++;
  }

  /** Gives record {@code r} back, at the free list's head; it must not be listed. */
  void free(int r) {
    long[] k = chunks[r >>> CHUNK_BITS];
    int o = BASE + ((r & MASK) << 3);
    if ((k[o + WORD] & LISTED) != 0) {
      throw new IllegalStateException("a listed record cannot be freed");
    }
    java.util.Arrays.fill(k, o, o + WORD, 0L);
    push(r);
    owners[r >>> CHUNK_BITS][r & MASK] = null;
    used--;
  }

  /** Links free record {@code r} in at the free list's head. */
  private void push(int r) {
    link(r, WORD, freeHead);
    link(r, PREV, -1);
    if (freeHead >= 0) {
      link(freeHead, PREV, r);
    }
    freeHead = r;
  }

  /** A free record's link: a record number, or -1 for none, in the low 32 bits. */
  private void link(int r, int field, int to) {
    set(r, field, to & 0xFFFF_FFFFL);
  }

  Ticket owner(int r) {
    return owners[r >>> CHUNK_BITS][r & MASK];
  }

  long get(int r, int field) {
    return chunks[r >>> CHUNK_BITS][BASE + ((r & MASK) << 3) + field];
  }

  void set(int r, int field, long v) {
    chunks[r >>> CHUNK_BITS][BASE + ((r & MASK) << 3) + field] = v;
  }

  int slot(int r) {
    return (int) get(r, WORD);
  }

  void slot(int r, int slot) {
    long w = get(r, WORD);
    set(r, WORD, (w & ~0xFFFF_FFFFL) | (slot & 0xFFFF_FFFFL));
  }

  byte state(int r) {
    return (byte) (get(r, WORD) >>> STATE_SHIFT);
  }

  void state(int r, byte state) {
    long w = get(r, WORD);
    set(r, WORD, (w & ~(0xFFL << STATE_SHIFT)) | ((state & 0xFFL) << STATE_SHIFT));
  }

  boolean is(int r, int flag) {
    return (get(r, WORD) & ((long) flag << FLAGS_SHIFT)) != 0;
  }

  void flag(int r, int flag, boolean on) {
    long w = get(r, WORD);
    long bit = (long) flag << FLAGS_SHIFT;
    set(r, WORD, on ? w | bit : w & ~bit);
  }

  boolean listed(int r) {
    return (get(r, WORD) & LISTED) != 0;
  }

  void listed(int r, boolean on) {
    long w = get(r, WORD);
    set(r, WORD, on ? w | LISTED : w & ~LISTED);
  }

  /** Every listed record's ticket, in record order. */
  void forEachListed(java.util.function.Consumer<Ticket> visitor) {
    for (int c = 0; c < chunks.length; c++) {
      long[] k = chunks[c];
      Ticket[] own = owners[c];
      for (int i = 0, o = BASE; o + WORD < k.length; i++, o += 8) {
        if ((k[o + WORD] & LISTED) != 0) {
          visitor.accept(own[i]);
        }
      }
    }
  }

  /** Adds free records: the first chunk grows in place until full, then whole chunks follow. */
  private void grow() {
    int c = chunks.length;
    int from;
    int to;
    if (c == 0 || (c == 1 && capacity(chunks[0]) < PER_CHUNK)) {
      int had = c == 0 ? 0 : capacity(chunks[0]);
      int now = had == 0 ? FIRST : Math.min(PER_CHUNK, had * 4);
      long[] k = new long[BASE + 8 * now];
      Ticket[] own = new Ticket[now];
      if (had > 0) {
        System.arraycopy(chunks[0], 0, k, 0, chunks[0].length);
        System.arraycopy(owners[0], 0, own, 0, had);
      } else {
        chunks = new long[1][];
        owners = new Ticket[1][];
      }
      chunks[0] = k;
      owners[0] = own;
      from = had;
      to = now;
      c = 0;
    } else {
      chunks = java.util.Arrays.copyOf(chunks, c + 1);
      owners = java.util.Arrays.copyOf(owners, c + 1);
      chunks[c] = new long[BASE + 8 * PER_CHUNK];
      owners[c] = new Ticket[PER_CHUNK];
      from = 0;
      to = PER_CHUNK;
    }
    // Pushed from the top down, so the records are taken in ascending order.
    for (int i = to - 1; i >= from; i--) {
      push((c << CHUNK_BITS) | i);
    }
  }

  private static int capacity(long[] chunk) {
    return (chunk.length - BASE) >>> 3;
  }

  /** Checks the free list and the count of records in use; returns what does not hold, or null. */
  String check() {
    int free = 0;
    int before = -1;
    for (int r = freeHead; r >= 0; before = r, r = slot(r)) {
      if (owner(r) != null
          || listed(r)
          || (int) get(r, PREV) != before
          || ++free > PER_CHUNK * chunks.length) {
        return "the free list";
      }
    }
    int all = 0;
    for (long[] k : chunks) {
      all += capacity(k);
    }
    return free + used == all ? null : "records: " + free + " free + " + used + " used != " + all;
  }
}
