package dev.room.engine;

/**
 * The ready list: the tickets offered a slot, each holding one reserved slot, in the order they
 * were offered, linked through {@link Ticket#left} and {@link Ticket#right}. The count is volatile
 * for readers without the lock; everything else is guarded by the owning line's lock.
 */
final class ReadyList {
  private Ticket head;
  private Ticket tail;
  private volatile long count;

  long count() {
    return count;
  }

  /** The first ready ticket (the rest follow through {@link Ticket#right}), or null. */
  Ticket first() {
    return head;
  }

  /** Puts {@code t} at the back. */
  void add(Ticket t) {
    t.left = tail;
    t.right = null;
    if (tail == null) {
      head = t;
    } else {
      tail.right = t;
    }
    tail = t;
    count++;
  }

  /** Takes {@code t} off the list; its slot stays taken until the caller frees it. */
  void remove(Ticket t) {
    if (t.left == null) {
      head = t.right;
    } else {
      t.left.right = t.right;
    }
    if (t.right == null) {
      tail = t.left;
    } else {
      t.right.left = t.left;
    }
    t.left = null;
    t.right = null;
    count--;
  }

  /**
   * Checks that every ticket on the list is READY and in {@code tokens}, and the count.
   *
   * @throws IllegalStateException naming the first invariant that does not hold
   */
  void checkInvariants(TokenStore tokens) {
    long ready = 0;
    for (Ticket r = head; r != null; r = r.right) {
      require(r.state() == Ticket.READY, "ready list holds a ticket that is not READY");
      require(tokens.get(r.hi(), r.lo()) == r, "a ready ticket is missing from the token store");
      ready++;
    }
    require(ready == count, "ready count " + count + " != ready list " + ready);
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("line invariant broken: " + what);
    }
  }
}
