package dev.room.engine;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The waiting tickets in line order: an order-statistic B+tree with counts in the parents.
 *
 * <p>A group is the tickets that share a band and place (clients tied by a promotion); its head is
 * its first member. A client's position is one plus the number of groups ahead of its own, so tied
 * clients report the same position and everyone else's is exact; away clients count, since they
 * keep their place. The present counts find the first present ticket, the one a freed slot goes to,
 * without walking past the away ones. Insert and remove are O(log n); position, selection and the
 * first present ticket are O(log n) with a small constant (see below); iteration of k tickets is
 * O(log n + k). Ordering keys are unique (band, place, order), as the line assigns them.
 *
 * <p>Implementation notes: memory layout and why. Leaves hold up to 64 tickets in line order in a
 * {@code Ticket[]}, with two 64-bit masks beside it: bit i of {@code heads} says the i-th ticket
 * heads its group, bit i of {@code present} that it is not away. Each ticket points back at its
 * leaf ({@link Ticket#leaf}). Inner nodes hold up to 64 children and, per child, three {@code int}
 * counts in primitive arrays (tickets, group heads, present tickets) and the least key the child
 * may hold (band, place, order in three primitive arrays), for the key searches of inserts and
 * probes. Every node knows its parent and its slot there.
 *
 * <p>A position is counted bottom-up and reads no other ticket and compares no key: from the ticket
 * to its leaf, a scan of the leaf's reference array for the ticket (up to 256 contiguous bytes) and
 * a popcount of the head mask up to it, then at each level above the sum of the head counts of the
 * siblings to the left, read from one contiguous {@code int} array. At 10 million tickets that is
 * four levels, and the inner nodes above the leaves (about 2,500, 6 MB) mostly stay in the CPU
 * caches, so a lookup costs a few cache lines in a handful of contiguous arrays. The treap this
 * replaces made a lookup a root-to-node walk of about 2 ln n dependent loads, each a 140-byte
 * ticket somewhere in the heap, which at a million tickets was some 40 cache misses. A Fenwick tree
 * over places was not used because places are not dense and not monotone in line order (bands and
 * rank moves come first, ties share a place, a lapsed offer comes back at its old place, a restore
 * brings any keys): it would need re-indexing, where the B+tree takes any key order.
 *
 * <p>Memory: the line grows at the back (arrivals), so a full last leaf is not split in half but
 * followed by a new one (likewise a full inner node on the right edge); leaves and inner nodes are
 * then full, and the index costs about 4 bytes (the leaf's reference) plus 4 bytes (the ticket's
 * back reference) plus about 1.5 bytes of leaf and inner overhead per ticket. A split elsewhere
 * halves the node; a leaf or inner node under a quarter full merges into a sibling when both fit in
 * three quarters of a node, so random removals cannot leave the tree sparse, and merge and split
 * never thrash on one ticket coming and going. Every structural change moves at most one node's
 * worth of entries: no operation costs more than O(64 log n), and nothing is ever copied in whole.
 *
 * <p>Not thread-safe: the owning line's lock guards it. Nothing here allocates except a split.
 */
final class LineIndex {
  static final int LEAF_CAPACITY = 64;
  static final int FANOUT = 64;

  private final int leafCapacity;
  private final int fanout;
  private Node root;
  private Leaf firstLeaf;
  private Leaf lastLeaf;
  private int size;
  private int groups;
  private int present;

  // The result of a key search (the index is single-threaded under the line's lock): the leaf and
  // the index in it, which may be the leaf's count (past its last ticket).
  private Leaf atLeaf;
  private int atIndex;

  LineIndex() {
    this(LEAF_CAPACITY, FANOUT);
  }

  /** With small nodes, for tests that need a deep tree from a few tickets. */
  LineIndex(int leafCapacity, int fanout) {
    if (leafCapacity < 2 || leafCapacity > 64 || fanout < 2) {
      throw new IllegalArgumentException("leaf capacity 2..64 and fan-out at least 2");
    }
    this.leafCapacity = leafCapacity;
    this.fanout = fanout;
    clear();
  }

  /** A node's place in the tree: its parent and its slot there. */
  abstract static class Node {
    Inner parent;
    int slot;
  }

  /** Up to 64 tickets in line order, with their head and present flags as bit masks. */
  static final class Leaf extends Node {
    final Ticket[] items;
    int n;
    long heads;
    long present;
    Leaf prev;
    Leaf next;

    Leaf(int capacity) {
      items = new Ticket[capacity];
    }
  }

  /** Children with their counts and least keys, in primitive arrays. */
  static final class Inner extends Node {
    final Node[] kids;
    final int[] sizes;
    final int[] heads;
    final int[] present;
    final int[] band;
    final long[] place;
    final long[] order;
    int n;

    Inner(int fanout) {
      kids = new Node[fanout];
      sizes = new int[fanout];
      heads = new int[fanout];
      present = new int[fanout];
      band = new int[fanout];
      place = new long[fanout];
      order = new long[fanout];
    }

    /** The last child whose least key is at or before the key (child 0 when none is). */
    int kidFor(int b, long p, long o) {
      int lo = 1;
      int hi = n - 1;
      int k = 0;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (compare(band[mid], place[mid], order[mid], b, p, o) <= 0) {
          k = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      return k;
    }
  }

  int size() {
    return size;
  }

  int groups() {
    return groups;
  }

  /** The number of present (not away) tickets. */
  int present() {
    return present;
  }

  /** The first present ticket in line order, or null when every waiting ticket is away. */
  Ticket firstPresent() {
    if (present == 0) {
      return null;
    }
    Node node = root;
    while (node instanceof Inner in) {
      int k = 0;
      while (in.present[k] == 0) {
        k++;
      }
      node = in.kids[k];
    }
    Leaf leaf = (Leaf) node;
    return leaf.items[Long.numberOfTrailingZeros(leaf.present)];
  }

  /** Marks {@code t}, which must be in the index, away or present; allocates nothing. */
  void setAway(Ticket t, boolean away) {
    if (t.away != away) {
      Leaf leaf = t.leaf;
      int i = indexIn(leaf, t);
      t.away = away;
      leaf.present ^= 1L << i;
      add(leaf, 0, 0, away ? -1 : 1);
    }
  }

  Ticket first() {
    return size == 0 ? null : firstLeaf.items[0];
  }

  /**
   * Inserts {@code t}; its key must be unique. A ticket whose offer lapsed comes back with its old
   * key, which may sort ahead of members that joined its group meanwhile: it becomes the head.
   */
  void insert(Ticket t) {
    Leaf leaf = lastLeaf;
    int i;
    if (leaf.n == 0 || t.compareTo(leaf.items[leaf.n - 1]) >= 0) {
      i = leaf.n; // at the back, as every arrival is
    } else {
      leaf = leafFor(t.band, t.place, t.order);
      i = upperIndex(leaf, t.band, t.place, t.order);
    }
    if (leaf.n == leafCapacity) {
      if (i == leaf.n && leaf == lastLeaf) {
        leaf = appendLeaf(leaf, t);
        i = 0;
      } else {
        Leaf right = splitLeaf(leaf);
        if (i > leaf.n) {
          i -= leaf.n;
          leaf = right;
        }
      }
    }
    Ticket pred = i > 0 ? leaf.items[i - 1] : leaf.prev == null ? null : last(leaf.prev);
    Ticket next = i < leaf.n ? leaf.items[i] : leaf.next == null ? null : leaf.next.items[0];
    boolean head = !t.sameGroup(pred);
    System.arraycopy(leaf.items, i, leaf.items, i + 1, leaf.n - i);
    leaf.items[i] = t;
    leaf.n++;
    leaf.heads = insertBit(leaf.heads, i, head);
    leaf.present = insertBit(leaf.present, i, !t.away);
    t.leaf = leaf;
    add(leaf, 1, head ? 1 : 0, t.away ? 0 : 1);
    if (head && t.sameGroup(next)) {
      setHead(next, false); // t sorts ahead of the group's old head: it heads the group now
    }
  }

  /** Removes {@code t}, which must be in the index, and promotes the next member of its group. */
  void remove(Ticket t) {
    Leaf leaf = t.leaf;
    int i = indexIn(leaf, t);
    long bit = 1L << i;
    boolean head = (leaf.heads & bit) != 0;
    boolean here = (leaf.present & bit) != 0;
    Ticket next =
        i + 1 < leaf.n ? leaf.items[i + 1] : leaf.next == null ? null : leaf.next.items[0];
    System.arraycopy(leaf.items, i + 1, leaf.items, i, leaf.n - i - 1);
    leaf.n--;
    leaf.items[leaf.n] = null;
    leaf.heads = removeBit(leaf.heads, i);
    leaf.present = removeBit(leaf.present, i);
    t.leaf = null;
    add(leaf, -1, head ? -1 : 0, here ? -1 : 0);
    if (head && t.sameGroup(next)) {
      setHead(next, true);
    }
    if (leaf.n < Math.max(1, leafCapacity / 4)) {
      shrunk(leaf);
    }
  }

  /** Returns the number of groups strictly ahead of {@code t}'s group, plus one. */
  long position(Ticket t) {
    Leaf leaf = t.leaf;
    int i = indexIn(leaf, t);
    long p = Long.bitCount(leaf.heads & (-1L >>> (63 - i)));
    Node child = leaf;
    for (Inner up = leaf.parent; up != null; up = up.parent) {
      int[] h = up.heads;
      for (int k = 0, s = child.slot; k < s; k++) {
        p += h[k];
      }
      child = up;
    }
    return p;
  }

  /** Returns the head of the {@code p}-th group (1-based), or null past the end. */
  Ticket groupAt(long p) {
    if (p < 1 || p > groups) {
      return null;
    }
    int want = (int) p;
    Node node = root;
    while (node instanceof Inner in) {
      int k = 0;
      while (want > in.heads[k]) {
        want -= in.heads[k];
        k++;
      }
      node = in.kids[k];
    }
    Leaf leaf = (Leaf) node;
    long bits = leaf.heads;
    for (int j = 1; j < want; j++) {
      bits &= bits - 1;
    }
    return leaf.items[Long.numberOfTrailingZeros(bits)];
  }

  /**
   * Visits tickets in line order until {@code visitor} has seen {@code limit} of them. The visitor
   * must not change the index.
   */
  void forEach(int limit, Consumer<Ticket> visitor) {
    visit(firstLeaf, 0, limit, visitor);
  }

  /** Visits up to {@code limit} tickets in line order, starting at {@code start} (inclusive). */
  void forEachFrom(Ticket start, int limit, Consumer<Ticket> visitor) {
    if (start.leaf != null) {
      visit(start.leaf, indexIn(start.leaf, start), limit, visitor);
    } else {
      lower(start.band, start.place, start.order);
      visit(atLeaf, atIndex, limit, visitor);
    }
  }

  /** The first ticket strictly behind {@code key}'s ordering key, or null. */
  Ticket after(Ticket key) {
    if (key.leaf != null) {
      Leaf leaf = key.leaf;
      int i = indexIn(leaf, key) + 1;
      return i < leaf.n ? leaf.items[i] : leaf.next == null ? null : leaf.next.items[0];
    }
    Leaf leaf = leafFor(key.band, key.place, key.order);
    int i = upperIndex(leaf, key.band, key.place, key.order);
    return i < leaf.n ? leaf.items[i] : leaf.next == null ? null : leaf.next.items[0];
  }

  /** The last ticket strictly ahead of {@code key}'s ordering key, or null. */
  Ticket before(Ticket key) {
    if (key.leaf != null) {
      Leaf leaf = key.leaf;
      int i = indexIn(leaf, key);
      return i > 0 ? leaf.items[i - 1] : leaf.prev == null ? null : last(leaf.prev);
    }
    return before(key.band, key.place, key.order);
  }

  /** The last ticket strictly ahead of the key (band, place, order), or null; allocates nothing. */
  Ticket before(int band, long place, long order) {
    lower(band, place, order);
    return atIndex > 0 ? atLeaf.items[atIndex - 1] : atLeaf.prev == null ? null : last(atLeaf.prev);
  }

  /** Whether {@code t}, which must be in the index, heads its group. */
  boolean isHead(Ticket t) {
    return (t.leaf.heads & (1L << indexIn(t.leaf, t))) != 0;
  }

  void clear() {
    Leaf leaf = new Leaf(leafCapacity);
    root = leaf;
    firstLeaf = leaf;
    lastLeaf = leaf;
    size = 0;
    groups = 0;
    present = 0;
  }

  /** Takes over {@code other}'s tickets (this index is empty), leaving {@code other} empty. */
  void takeAll(LineIndex other) {
    if (other.leafCapacity != leafCapacity || other.fanout != fanout) {
      throw new IllegalArgumentException("indexes of different node sizes");
    }
    root = other.root;
    firstLeaf = other.firstLeaf;
    lastLeaf = other.lastLeaf;
    size = other.size;
    groups = other.groups;
    present = other.present;
    other.clear();
  }

  /**
   * Checks the tree against itself: counts, keys in order, least keys, links and flags.
   *
   * @throws IllegalStateException naming the first thing that does not hold
   */
  void checkStructure() {
    require(root.parent == null, "root has a parent");
    int[] totals = new int[3];
    check(root, totals);
    require(totals[0] == size, "size " + size + " != " + totals[0]);
    require(totals[1] == groups, "groups " + groups + " != " + totals[1]);
    require(totals[2] == present, "present " + present + " != " + totals[2]);
    Ticket prev = null;
    int seen = 0;
    Leaf before = null;
    for (Leaf l = firstLeaf; l != null; l = l.next) {
      require(l.prev == before, "leaf links");
      require(l.n > 0 || l == root, "empty leaf below the root");
      for (int i = 0; i < l.n; i++) {
        Ticket t = l.items[i];
        require(t.leaf == l, "a ticket's leaf");
        require(prev == null || prev.compareTo(t) < 0, "tickets out of order");
        require(((l.heads >>> i) & 1) == (t.sameGroup(prev) ? 0 : 1), "head flag");
        require(((l.present >>> i) & 1) == (t.away ? 0 : 1), "present flag");
        prev = t;
        seen++;
      }
      require(l.n == 64 || (l.heads >>> l.n) == 0 && (l.present >>> l.n) == 0, "stray flags");
      before = l;
    }
    require(before == lastLeaf, "last leaf");
    require(seen == size, "leaves hold " + seen + " != " + size);
  }

  /** Adds {@code node}'s counts to {@code totals}, checking its subtree. */
  private void check(Node node, int[] totals) {
    if (node instanceof Leaf l) {
      totals[0] += l.n;
      totals[1] += Long.bitCount(l.heads);
      totals[2] += Long.bitCount(l.present);
      return;
    }
    Inner in = (Inner) node;
    require(in.n >= (in == root ? 2 : 1), "inner node with " + in.n + " children");
    for (int k = 0; k < in.n; k++) {
      Node kid = in.kids[k];
      require(kid.parent == in && kid.slot == k, "parent or slot of a child");
      int[] sub = new int[3];
      check(kid, sub);
      require(sub[0] == in.sizes[k] && sub[1] == in.heads[k] && sub[2] == in.present[k], "counts");
      if (k > 0) {
        Ticket least = leastOf(kid);
        Ticket most = lastOf(in.kids[k - 1]);
        require(
            compare(in.band[k], in.place[k], in.order[k], least.band, least.place, least.order) <= 0
                && most.compareTo(least) < 0
                && compare(most.band, most.place, most.order, in.band[k], in.place[k], in.order[k])
                    < 0,
            "least key of a child");
      }
      totals[0] += sub[0];
      totals[1] += sub[1];
      totals[2] += sub[2];
    }
  }

  private static Ticket leastOf(Node node) {
    while (node instanceof Inner in) {
      node = in.kids[0];
    }
    return ((Leaf) node).items[0];
  }

  private static Ticket lastOf(Node node) {
    while (node instanceof Inner in) {
      node = in.kids[in.n - 1];
    }
    return last((Leaf) node);
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("line index broken: " + what);
    }
  }

  // ---- searching

  private void visit(Leaf leaf, int from, int limit, Consumer<Ticket> visitor) {
    int seen = 0;
    for (Leaf l = leaf; l != null && seen < limit; l = l.next, from = 0) {
      for (int i = from; i < l.n && seen < limit; i++, seen++) {
        visitor.accept(l.items[i]);
      }
    }
  }

  private static Ticket last(Leaf leaf) {
    return leaf.items[leaf.n - 1];
  }

  private static int indexIn(Leaf leaf, Ticket t) {
    if (leaf != null) {
      Ticket[] items = leaf.items;
      for (int i = 0, n = leaf.n; i < n; i++) {
        if (items[i] == t) {
          return i;
        }
      }
    }
    throw new IllegalStateException("ticket not in the line index");
  }

  /** The leaf whose key range holds the key. */
  private Leaf leafFor(int b, long p, long o) {
    Node node = root;
    while (node instanceof Inner in) {
      node = in.kids[in.kidFor(b, p, o)];
    }
    return (Leaf) node;
  }

  /** The index of the first ticket in {@code leaf} strictly behind the key. */
  private static int upperIndex(Leaf leaf, int b, long p, long o) {
    int lo = 0;
    int hi = leaf.n;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      Ticket m = leaf.items[mid];
      if (compare(m.band, m.place, m.order, b, p, o) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The index of the first ticket in {@code leaf} at or behind the key. */
  private static int lowerIndex(Leaf leaf, int b, long p, long o) {
    int lo = 0;
    int hi = leaf.n;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      Ticket m = leaf.items[mid];
      if (compare(m.band, m.place, m.order, b, p, o) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Sets {@link #atLeaf} and {@link #atIndex} to the first ticket at or behind the key. */
  private void lower(int b, long p, long o) {
    Leaf leaf = leafFor(b, p, o);
    atLeaf = leaf;
    atIndex = lowerIndex(leaf, b, p, o);
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

  // ---- counts and flags

  /** Adds the deltas to the counts of every node above {@code node} and to the totals. */
  private void add(Node node, int dSize, int dHeads, int dPresent) {
    for (Node c = node; c.parent != null; c = c.parent) {
      Inner up = c.parent;
      up.sizes[c.slot] += dSize;
      up.heads[c.slot] += dHeads;
      up.present[c.slot] += dPresent;
    }
    size += dSize;
    groups += dHeads;
    present += dPresent;
  }

  private void setHead(Ticket t, boolean head) {
    Leaf leaf = t.leaf;
    long bit = 1L << indexIn(leaf, t);
    if (((leaf.heads & bit) != 0) != head) {
      leaf.heads ^= bit;
      add(leaf, 0, head ? 1 : -1, 0);
    }
  }

  /** Inserts {@code b} at bit {@code i}, moving bits i and above up one. */
  private static long insertBit(long bits, int i, boolean b) {
    long low = bits & ((1L << i) - 1);
    return low | ((bits & ~((1L << i) - 1)) << 1) | (b ? 1L << i : 0);
  }

  /** Removes bit {@code i}, moving the bits above it down one. */
  private static long removeBit(long bits, int i) {
    long lowMask = (1L << i) - 1;
    return (bits & lowMask) | ((bits >>> 1) & ~lowMask);
  }

  // ---- structure

  /** Starts an empty leaf after full {@code leaf}, the last, for {@code t} to go first in. */
  private Leaf appendLeaf(Leaf leaf, Ticket t) {
    Leaf right = new Leaf(leafCapacity);
    link(leaf, right);
    insertKid(parentOf(leaf), leaf.slot + 1, right, t.band, t.place, t.order);
    return right;
  }

  /** Moves the back half of full {@code leaf} to a new leaf right after it; returns that one. */
  private Leaf splitLeaf(Leaf leaf) {
    Leaf right = new Leaf(leafCapacity);
    int m = leaf.n / 2;
    int moved = leaf.n - m;
    System.arraycopy(leaf.items, m, right.items, 0, moved);
    Arrays.fill(leaf.items, m, leaf.n, null);
    for (int i = 0; i < moved; i++) {
      right.items[i].leaf = right;
    }
    right.n = moved;
    leaf.n = m;
    long lowMask = (1L << m) - 1;
    right.heads = leaf.heads >>> m;
    right.present = leaf.present >>> m;
    leaf.heads &= lowMask;
    leaf.present &= lowMask;
    link(leaf, right);
    Ticket least = right.items[0];
    insertKid(parentOf(leaf), leaf.slot + 1, right, least.band, least.place, least.order);
    moveCounts(leaf, right, moved, Long.bitCount(right.heads), Long.bitCount(right.present));
    return right;
  }

  /**
   * Moves counts from {@code from}'s path to {@code to}'s, after a split moved that many tickets:
   * the totals stay, and every parent's counts match its children's again.
   */
  private void moveCounts(Node from, Node to, int sz, int hd, int pr) {
    add(to, sz, hd, pr);
    add(from, -sz, -hd, -pr);
  }

  private void link(Leaf leaf, Leaf right) {
    right.prev = leaf;
    right.next = leaf.next;
    if (leaf.next == null) {
      lastLeaf = right;
    } else {
      leaf.next.prev = right;
    }
    leaf.next = right;
  }

  private void unlink(Leaf leaf) {
    if (leaf.prev == null) {
      firstLeaf = leaf.next;
    } else {
      leaf.prev.next = leaf.next;
    }
    if (leaf.next == null) {
      lastLeaf = leaf.prev;
    } else {
      leaf.next.prev = leaf.prev;
    }
    leaf.prev = null;
    leaf.next = null;
  }

  /** {@code node}'s parent, giving the root one (holding the root's counts) when it has none. */
  private Inner parentOf(Node node) {
    if (node.parent == null) {
      Inner top = new Inner(fanout);
      top.kids[0] = node;
      top.sizes[0] = size;
      top.heads[0] = groups;
      top.present[0] = present;
      top.n = 1;
      node.parent = top;
      node.slot = 0;
      root = top;
    }
    return node.parent;
  }

  /** Puts {@code kid} (least key b, p, o; counted as empty) at slot {@code s} of {@code up}. */
  private void insertKid(Inner up, int s, Node kid, int b, long p, long o) {
    if (up.n == fanout) {
      if (s == up.n && onRightEdge(up)) {
        Inner right = new Inner(fanout);
        insertKid(parentOf(up), up.slot + 1, right, b, p, o);
        up = right;
        s = 0;
      } else {
        Inner right = splitInner(up);
        if (s > up.n) {
          s -= up.n;
          up = right;
        }
      }
    }
    int move = up.n - s;
    System.arraycopy(up.kids, s, up.kids, s + 1, move);
    System.arraycopy(up.sizes, s, up.sizes, s + 1, move);
    System.arraycopy(up.heads, s, up.heads, s + 1, move);
    System.arraycopy(up.present, s, up.present, s + 1, move);
    System.arraycopy(up.band, s, up.band, s + 1, move);
    System.arraycopy(up.place, s, up.place, s + 1, move);
    System.arraycopy(up.order, s, up.order, s + 1, move);
    up.kids[s] = kid;
    up.sizes[s] = 0;
    up.heads[s] = 0;
    up.present[s] = 0;
    up.band[s] = b;
    up.place[s] = p;
    up.order[s] = o;
    up.n++;
    kid.parent = up;
    for (int k = s; k < up.n; k++) {
      up.kids[k].slot = k;
    }
  }

  private static boolean onRightEdge(Node node) {
    for (Node c = node; c.parent != null; c = c.parent) {
      if (c.slot != c.parent.n - 1) {
        return false;
      }
    }
    return true;
  }

  /** Moves the back half of full {@code in} to a new node right after it; returns that one. */
  private Inner splitInner(Inner in) {
    Inner right = new Inner(fanout);
    int m = in.n / 2;
    int moved = in.n - m;
    System.arraycopy(in.kids, m, right.kids, 0, moved);
    System.arraycopy(in.sizes, m, right.sizes, 0, moved);
    System.arraycopy(in.heads, m, right.heads, 0, moved);
    System.arraycopy(in.present, m, right.present, 0, moved);
    System.arraycopy(in.band, m, right.band, 0, moved);
    System.arraycopy(in.place, m, right.place, 0, moved);
    System.arraycopy(in.order, m, right.order, 0, moved);
    Arrays.fill(in.kids, m, in.n, null);
    int sz = 0;
    int hd = 0;
    int pr = 0;
    for (int k = 0; k < moved; k++) {
      right.kids[k].parent = right;
      right.kids[k].slot = k;
      sz += right.sizes[k];
      hd += right.heads[k];
      pr += right.present[k];
    }
    right.n = moved;
    in.n = m;
    insertKid(parentOf(in), in.slot + 1, right, right.band[0], right.place[0], right.order[0]);
    moveCounts(in, right, sz, hd, pr);
    return right;
  }

  /** After a removal left {@code leaf} under a quarter full: drops it if empty, else merges it. */
  private void shrunk(Leaf leaf) {
    Inner up = leaf.parent;
    if (up == null) {
      return; // the root leaf may hold anything, nothing included
    }
    if (leaf.n == 0) {
      unlink(leaf);
      removeKid(up, leaf.slot);
      return;
    }
    int most = leafCapacity - leafCapacity / 4;
    if (leaf.slot > 0 && ((Leaf) up.kids[leaf.slot - 1]).n + leaf.n <= most) {
      mergeLeaves((Leaf) up.kids[leaf.slot - 1], leaf);
    } else if (leaf.slot + 1 < up.n && ((Leaf) up.kids[leaf.slot + 1]).n + leaf.n <= most) {
      mergeLeaves(leaf, (Leaf) up.kids[leaf.slot + 1]);
    }
  }

  /** Moves every ticket of {@code right} to {@code left}, its sibling just before it. */
  private void mergeLeaves(Leaf left, Leaf right) {
    Inner up = left.parent;
    System.arraycopy(right.items, 0, left.items, left.n, right.n);
    for (int i = 0; i < right.n; i++) {
      right.items[i].leaf = left;
    }
    left.heads |= right.heads << left.n;
    left.present |= right.present << left.n;
    left.n += right.n;
    up.sizes[left.slot] += up.sizes[right.slot];
    up.heads[left.slot] += up.heads[right.slot];
    up.present[left.slot] += up.present[right.slot];
    unlink(right);
    removeKid(up, right.slot);
  }

  /** Removes the child at slot {@code s}, whose counts are zero or were moved to a sibling. */
  private void removeKid(Inner up, int s) {
    int move = up.n - s - 1;
    System.arraycopy(up.kids, s + 1, up.kids, s, move);
    System.arraycopy(up.sizes, s + 1, up.sizes, s, move);
    System.arraycopy(up.heads, s + 1, up.heads, s, move);
    System.arraycopy(up.present, s + 1, up.present, s, move);
    System.arraycopy(up.band, s + 1, up.band, s, move);
    System.arraycopy(up.place, s + 1, up.place, s, move);
    System.arraycopy(up.order, s + 1, up.order, s, move);
    up.n--;
    up.kids[up.n] = null;
    for (int k = s; k < up.n; k++) {
      up.kids[k].slot = k;
    }
    Inner above = up.parent;
    if (above == null) {
      while (root instanceof Inner top && top.n == 1) { // a root with one child hands over
        root = top.kids[0];
        root.parent = null;
        root.slot = 0;
      }
    } else if (up.n == 0) {
      removeKid(above, up.slot);
    } else if (up.n < Math.max(1, fanout / 4)) {
      int most = fanout - fanout / 4;
      if (up.slot > 0 && ((Inner) above.kids[up.slot - 1]).n + up.n <= most) {
        mergeInner((Inner) above.kids[up.slot - 1], up);
      } else if (up.slot + 1 < above.n && ((Inner) above.kids[up.slot + 1]).n + up.n <= most) {
        mergeInner(up, (Inner) above.kids[up.slot + 1]);
      }
    }
  }

  /** Moves every child of {@code right} to {@code left}, its sibling just before it. */
  private void mergeInner(Inner left, Inner right) {
    Inner up = left.parent;
    int at = left.n;
    System.arraycopy(right.kids, 0, left.kids, at, right.n);
    System.arraycopy(right.sizes, 0, left.sizes, at, right.n);
    System.arraycopy(right.heads, 0, left.heads, at, right.n);
    System.arraycopy(right.present, 0, left.present, at, right.n);
    System.arraycopy(right.band, 0, left.band, at, right.n);
    System.arraycopy(right.place, 0, left.place, at, right.n);
    System.arraycopy(right.order, 0, left.order, at, right.n);
    // right's first child had no least key of its own in right: it is right's, from above
    left.band[at] = up.band[right.slot];
    left.place[at] = up.place[right.slot];
    left.order[at] = up.order[right.slot];
    left.n += right.n;
    for (int k = at; k < left.n; k++) {
      left.kids[k].parent = left;
      left.kids[k].slot = k;
    }
    up.sizes[left.slot] += up.sizes[right.slot];
    up.heads[left.slot] += up.heads[right.slot];
    up.present[left.slot] += up.present[right.slot];
    removeKid(up, right.slot);
  }
}
