package dev.room.engine;

import java.util.function.Consumer;

/**
 * The waiting tickets in line order, for exact positions: slots in line order ({@link LineSlots})
 * with bit sets and Fenwick trees over them ({@link SlotCounts}).
 *
 * <p>A group is the tickets that share a band and place (clients tied by a promotion); its head is
 * its first member. A client's position is one plus the number of groups ahead of its own, so tied
 * clients report the same position and everyone else's is exact; away clients count, since they
 * keep their place. The present bits find the first present ticket, the one a freed slot goes to,
 * without walking past the away ones. Ordering keys are unique (band, place, order), as the line
 * assigns them.
 *
 * <p>Why this layout: a position is the number of head bits up to the ticket's slot, a popcount
 * over the slot's block of eight words plus a Fenwick prefix sum over per-block counts. It reads
 * the ticket's slot number (in the ticket, which the token lookup has just read) and then only the
 * head bits (one or two cache lines) and their tree, 128 KB at 10 million waiting, which stays in
 * the core's cache; no other ticket is read and no key compared. The B+tree this replaces walked
 * from the ticket to its leaf (a leaf object, its reference array and a scan of it) and up through
 * the parents' count arrays, several cache and TLB misses per lookup at 10 million; measured in one
 * JVM (see {@code SideBySide} in the benchmarks) that walk cost several times the token lookup
 * itself. Places are neither dense nor monotone in line order (bands and ranks come first, ties
 * share a place, a lapsed offer comes back at its old place, a restore brings any keys), so slots
 * are not places: they are assigned in line order with gaps, and a ticket that sorts between two
 * neighbours without a gap between them makes its window spread out (see {@link LineSlots}).
 *
 * <p>Costs: position, first present ticket and the head of the p-th group are O(log n) over
 * primitive arrays; an arrival at the back is O(log n); an insert elsewhere and a removal O(log n)
 * plus, amortised, O(log² n) slot moves; iteration of k tickets O(k). Memory: 4 bytes per slot (the
 * array holds between 4/3 and 8 slots per ticket's 1 at the extremes, about 1.6 once grown at the
 * back) plus 3 bits and about 0.03 bytes of trees per slot.
 *
 * <p>Not thread-safe: the owning line's lock guards it. Nothing here allocates on a position,
 * selection, presence change or removal, except when the array moves (it slides, grows, shrinks).
 */
final class LineIndex {
  private static final int DEFAULT_CAPACITY = 1024;

  private final LineSlots slots;

  LineIndex() {
    slots = new LineSlots(DEFAULT_CAPACITY);
  }

  /**
   * With a small array (at least 64 slots, {@code leafCapacity × fanout} rounded up), for tests
   * that need its growth, slides and spreads from a few tickets. The names are the B+tree's.
   */
  LineIndex(int leafCapacity, int fanout) {
    if (leafCapacity < 2 || leafCapacity > 64 || fanout < 2) {
      throw new IllegalArgumentException("leaf capacity 2..64 and fan-out at least 2");
    }
    slots = new LineSlots(leafCapacity * fanout);
  }

  int size() {
    return slots.size();
  }

  int groups() {
    return slots.counts.headCount();
  }

  /** The number of present (not away) tickets. */
  int present() {
    return slots.counts.presentCount();
  }

  /** The first present ticket in line order, or null when every waiting ticket is away. */
  Ticket firstPresent() {
    return slots.ticket(slots.counts.firstPresent());
  }

  /** Marks {@code t}, which must be in the index, away or present; allocates nothing. */
  void setAway(Ticket t, boolean away) {
    if (t.away() != away) {
      int i = slots.index(t);
      t.away(away);
      slots.counts.setPresent(i, !away);
    }
  }

  Ticket first() {
    return slots.ticket(slots.counts.selectUsed(1));
  }

  private Ticket last() {
    return slots.ticket(slots.counts.selectUsed(slots.size()));
  }

  /**
   * Inserts {@code t}; its key must be unique. A ticket whose offer lapsed comes back with its old
   * key, which may sort ahead of members that joined its group meanwhile: it becomes the head.
   */
  void insert(Ticket t) {
    if (slots.holds(t)) {
      throw new IllegalStateException("ticket already in the line index");
    }
    Ticket pred = last();
    Ticket succ = null;
    if (pred != null && t.compareTo(pred) < 0) { // not at the back, where every arrival goes
      int s = search(t.band, t.place, t.order, true);
      succ = slots.at[s];
      pred = slots.ticket(slots.counts.prevUsed(s - 1));
    }
    int i = slots.room(pred, succ);
    boolean head = !t.sameGroup(pred);
    slots.put(t, i, head);
    if (head && t.sameGroup(succ)) {
      slots.counts.setHead(slots.index(succ), false); // t sorts ahead of the group's old head
    }
  }

  /** Removes {@code t}, which must be in the index, and promotes the next member of its group. */
  void remove(Ticket t) {
    int i = slots.index(t);
    SlotCounts c = slots.counts;
    if (c.isHead(i)) {
      int next = c.nextUsed(i + 1);
      if (next >= 0 && !c.isHead(next)) { // a member of t's group, read from the bits alone
        c.setHead(next, true);
      }
    }
    slots.take(t, i);
  }

  /** Returns the number of groups strictly ahead of {@code t}'s group, plus one. */
  long position(Ticket t) {
    return positionAt(t.slot());
  }

  /** {@link #position(Ticket)} of the waiting ticket in {@code slot}, read from its record. */
  long positionAt(int slot) {
    return slots.counts.headsThrough(slots.slotIndex(slot));
  }

  /** Returns the head of the {@code p}-th group (1-based), or null past the end. */
  Ticket groupAt(long p) {
    return p < 1 || p > groups() ? null : slots.ticket(slots.counts.selectHead((int) p));
  }

  /**
   * Visits tickets in line order until {@code visitor} has seen {@code limit} of them. The visitor
   * must not change the index.
   */
  void forEach(int limit, Consumer<Ticket> visitor) {
    visit(slots.counts.nextUsed(0), limit, visitor);
  }

  /** Visits up to {@code limit} tickets in line order, starting at {@code start} (inclusive). */
  void forEachFrom(Ticket start, int limit, Consumer<Ticket> visitor) {
    int from =
        slots.holds(start)
            ? slots.index(start)
            : search(start.band, start.place, start.order, false);
    visit(from, limit, visitor);
  }

  /** The first ticket strictly behind {@code key}'s ordering key, or null. */
  Ticket after(Ticket key) {
    if (slots.holds(key)) {
      return slots.ticket(slots.counts.nextUsed(slots.index(key) + 1));
    }
    return slots.ticket(search(key.band, key.place, key.order, true));
  }

  /** The last ticket strictly ahead of {@code key}'s ordering key, or null. */
  Ticket before(Ticket key) {
    if (slots.holds(key)) {
      return slots.ticket(slots.counts.prevUsed(slots.index(key) - 1));
    }
    return before(key.band, key.place, key.order);
  }

  /** The last ticket strictly ahead of the key (band, place, order), or null; allocates nothing. */
  Ticket before(int band, long place, long order) {
    int s = search(band, place, order, false);
    return s < 0 ? last() : slots.ticket(slots.counts.prevUsed(s - 1));
  }

  /** Whether {@code t}, which must be in the index, heads its group. */
  boolean isHead(Ticket t) {
    return slots.counts.isHead(slots.index(t));
  }

  void clear() {
    slots.clear();
  }

  /** Takes over {@code other}'s tickets (this index is empty), leaving {@code other} empty. */
  void takeAll(LineIndex other) {
    slots.takeAll(other.slots);
  }

  /**
   * Checks the index against itself: counts, keys in order, slots and flags.
   *
   * @throws IllegalStateException naming the first thing that does not hold
   */
  void checkStructure() {
    String broken = slots.check();
    Ticket prev = null;
    for (int i = slots.counts.nextUsed(0); broken == null && i >= 0; ) {
      Ticket t = slots.at[i];
      if (prev != null && prev.compareTo(t) >= 0) {
        broken = "tickets out of order";
      } else if (slots.counts.isHead(i) == t.sameGroup(prev)) {
        broken = "head flag";
      }
      prev = t;
      i = slots.counts.nextUsed(i + 1);
    }
    if (broken != null) {
      throw new IllegalStateException("line index broken: " + broken);
    }
  }

  private void visit(int from, int limit, Consumer<Ticket> visitor) {
    int seen = 0;
    for (int i = from; i >= 0 && seen < limit; i = slots.counts.nextUsed(i + 1), seen++) {
      visitor.accept(slots.at[i]);
    }
  }

  /**
   * The first slot whose ticket is behind the key ({@code strictly}) or at or behind it, or -1: a
   * binary search over slot indexes, skipping free slots.
   */
  private int search(int b, long p, long o, boolean strictly) {
    SlotCounts c = slots.counts;
    Ticket[] at = slots.at;
    int lo = 0;
    int hi = at.length;
    int found = -1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      int s = c.nextUsed(mid);
      if (s < 0 || s >= hi) {
        hi = mid; // nothing in [mid, hi)
        continue;
      }
      Ticket m = at[s];
      int cmp = compare(m.band, m.place, m.order, b, p, o);
      if (strictly ? cmp > 0 : cmp >= 0) {
        found = s;
        hi = mid; // [mid, s) is free: anything earlier that qualifies is before mid
      } else {
        lo = s + 1;
      }
    }
    return found;
  }

  /** Line order of two keys: negative when the first waits ahead of the second. */
  static int compare(int b1, long p1, long o1, int b2, long p2, long o2) {
    if (b1 != b2) {
      return b1 > b2 ? -1 : 1;
    }
    if (p1 != p2) {
      return p1 < p2 ? -1 : 1;
    }
    return Long.compare(o1, o2);
  }
}
