package dev.room.engine;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * An order-statistic treap over the waiting tickets.
 *
 * <p>Each node counts the tickets, the group heads and the present tickets (not {@linkplain
 * Ticket#away away}) in its subtree. A group is the tickets that share a band and place (clients
 * tied by a promotion); its head is its first member. A client's position is one plus the number of
 * groups ahead of its own, so tied clients report the same position and everyone else's is exact;
 * away clients count, since they keep their place. The present counts find the first present
 * ticket, the one a freed slot goes to, without walking past the away ones. Insert, remove,
 * position and selection are O(log n) expected; iteration of the first k is O(log n + k).
 *
 * <p>Not thread-safe: the owning line's lock guards it.
 */
final class LineIndex {
  private Ticket root;
  private int seed = 0x2545F491;

  int size() {
    return root == null ? 0 : root.size;
  }

  int groups() {
    return root == null ? 0 : root.heads;
  }

  /** The number of present (not away) tickets. */
  int present() {
    return here(root);
  }

  /** The first present ticket in line order, or null when every waiting ticket is away. */
  Ticket firstPresent() {
    Ticket n = root;
    if (here(n) == 0) {
      return null;
    }
    while (true) {
      if (here(n.left) > 0) {
        n = n.left;
      } else if (!n.away) {
        return n;
      } else {
        n = n.right;
      }
    }
  }

  /** Marks {@code t}, which must be in the index, away or present; allocates nothing. */
  void setAway(Ticket t, boolean away) {
    if (t.away != away) {
      t.away = away;
      refreshTo(root, t);
    }
  }

  Ticket first() {
    Ticket t = root;
    if (t == null) {
      return null;
    }
    while (t.left != null) {
      t = t.left;
    }
    return t;
  }

  /**
   * Inserts {@code t}; its key must be unique. A ticket whose offer lapsed comes back with its old
   * key, which may sort ahead of members that joined its group meanwhile: it becomes the head.
   */
  void insert(Ticket t) {
    t.left = null;
    t.right = null;
    t.priority = nextPriority();
    Ticket pred = floorGroupMember(t);
    t.head = !t.sameGroup(pred);
    pull(t);
    Ticket[] parts = split(root, t);
    root = merge(merge(parts[0], t), parts[1]);
    if (t.head) {
      Ticket next = successor(t);
      if (t.sameGroup(next) && next.head) {
        next.head = false;
        refreshPath(next);
      }
    }
  }

  /** Removes {@code t}, which must be in the index, and promotes the next member of its group. */
  void remove(Ticket t) {
    root = remove(root, t);
    if (t.head) {
      Ticket next = successor(t);
      if (t.sameGroup(next)) {
        next.head = true;
        refreshPath(next);
      }
    }
    t.left = null;
    t.right = null;
  }

  /** Returns the number of groups strictly ahead of {@code t}'s group, plus one. */
  long position(Ticket t) {
    long headsAhead = 0;
    Ticket n = root;
    while (n != null) {
      int c = t.compareTo(n);
      if (c == 0) {
        headsAhead += heads(n.left);
        break;
      } else if (c < 0) {
        n = n.left;
      } else {
        headsAhead += heads(n.left) + (n.head ? 1 : 0);
        n = n.right;
      }
    }
    return t.head ? headsAhead + 1 : headsAhead;
  }

  /** Returns the head of the {@code p}-th group (1-based), or null past the end. */
  Ticket groupAt(long p) {
    Ticket n = root;
    long want = p;
    while (n != null) {
      int leftHeads = heads(n.left);
      if (want <= leftHeads) {
        n = n.left;
      } else if (n.head && want == leftHeads + 1) {
        return n;
      } else {
        want -= leftHeads + (n.head ? 1 : 0);
        n = n.right;
      }
    }
    return null;
  }

  /** Visits tickets in line order until {@code visitor} has seen {@code limit} of them. */
  void forEach(int limit, Consumer<Ticket> visitor) {
    ArrayDeque<Ticket> stack = new ArrayDeque<>();
    Ticket n = root;
    int seen = 0;
    while ((n != null || !stack.isEmpty()) && seen < limit) {
      while (n != null) {
        stack.push(n);
        n = n.left;
      }
      n = stack.pop();
      visitor.accept(n);
      seen++;
      n = n.right;
    }
  }

  /** Visits up to {@code limit} tickets in line order, starting at {@code start} (inclusive). */
  void forEachFrom(Ticket start, int limit, Consumer<Ticket> visitor) {
    ArrayDeque<Ticket> stack = new ArrayDeque<>();
    Ticket n = root;
    while (n != null) {
      if (n.compareTo(start) >= 0) {
        stack.push(n);
        n = n.left;
      } else {
        n = n.right;
      }
    }
    int seen = 0;
    while (!stack.isEmpty() && seen < limit) {
      n = stack.pop();
      visitor.accept(n);
      seen++;
      for (Ticket c = n.right; c != null; c = c.left) {
        stack.push(c);
      }
    }
  }

  /** The first ticket strictly behind {@code key}'s ordering key, or null. */
  Ticket after(Ticket key) {
    return successor(key);
  }

  /** The last ticket strictly ahead of {@code key}'s ordering key, or null. */
  Ticket before(Ticket key) {
    Ticket n = root;
    Ticket best = null;
    while (n != null) {
      if (n.compareTo(key) < 0) {
        best = n;
        n = n.right;
      } else {
        n = n.left;
      }
    }
    return best;
  }

  void clear() {
    root = null;
  }

  /** Takes over {@code other}'s tickets (this index is empty), leaving {@code other} empty. */
  void takeAll(LineIndex other) {
    root = other.root;
    seed = other.seed;
    other.root = null;
  }

  private Ticket successor(Ticket t) {
    Ticket n = root;
    Ticket best = null;
    while (n != null) {
      if (t.compareTo(n) < 0) {
        best = n;
        n = n.left;
      } else {
        n = n.right;
      }
    }
    return best;
  }

  /** The last ticket at or before {@code t}'s group end, if it is in {@code t}'s group. */
  private Ticket floorGroupMember(Ticket t) {
    Ticket n = root;
    Ticket best = null;
    while (n != null) {
      if (n.compareTo(t) < 0) {
        best = n;
        n = n.right;
      } else {
        n = n.left;
      }
    }
    return best;
  }

  /** Recomputes aggregates on the root-to-{@code t} path after {@code t}'s head flag changed. */
  private void refreshPath(Ticket t) {
    ArrayDeque<Ticket> path = new ArrayDeque<>();
    Ticket n = root;
    while (n != null) {
      path.push(n);
      int c = t.compareTo(n);
      if (c == 0) {
        break;
      }
      n = c < 0 ? n.left : n.right;
    }
    while (!path.isEmpty()) {
      pull(path.pop());
    }
  }

  private static void refreshTo(Ticket n, Ticket t) {
    int c = t.compareTo(n);
    if (c != 0) {
      refreshTo(c < 0 ? n.left : n.right, t);
    }
    pull(n);
  }

  private Ticket remove(Ticket n, Ticket t) {
    if (n == null) {
      throw new IllegalStateException("ticket not in the line index");
    }
    int c = t.compareTo(n);
    if (c == 0) {
      return merge(n.left, n.right);
    }
    if (c < 0) {
      n.left = remove(n.left, t);
    } else {
      n.right = remove(n.right, t);
    }
    pull(n);
    return n;
  }

  /** Splits into (keys below t, keys above t). */
  private Ticket[] split(Ticket n, Ticket t) {
    if (n == null) {
      return new Ticket[2];
    }
    if (n.compareTo(t) < 0) {
      Ticket[] r = split(n.right, t);
      n.right = r[0];
      pull(n);
      r[0] = n;
      return r;
    }
    Ticket[] l = split(n.left, t);
    n.left = l[1];
    pull(n);
    l[1] = n;
    return l;
  }

  private Ticket merge(Ticket a, Ticket b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    if (a.priority > b.priority) {
      a.right = merge(a.right, b);
      pull(a);
      return a;
    }
    b.left = merge(a, b.left);
    pull(b);
    return b;
  }

  private static void pull(Ticket n) {
    n.size = 1 + size(n.left) + size(n.right);
    n.heads = (n.head ? 1 : 0) + heads(n.left) + heads(n.right);
    n.here = (n.away ? 0 : 1) + here(n.left) + here(n.right);
  }

  private static int here(Ticket n) {
    return n == null ? 0 : n.here;
  }

  private static int size(Ticket n) {
    return n == null ? 0 : n.size;
  }

  private static int heads(Ticket n) {
    return n == null ? 0 : n.heads;
  }

  private int nextPriority() {
    int x = seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    seed = x;
    return x;
  }
}
