package dev.room.engine;

/**
 * One queued client: its token, its place in line and its liveness clock.
 *
 * <p>A ticket is also the node of the {@link LineIndex} treap that orders the waiting line, so a
 * queued client costs one object. Every field is guarded by the owning {@link InMemoryLine}'s lock.
 */
final class Ticket {
  static final byte WAITING = 1;
  static final byte READY = 2;
  static final byte GONE = 3;

  final long hi;
  final long lo;

  /** Arrival number from the ticket counter; never changes. */
  final long number;

  /**
   * Ordering key: higher band first, then lower place, then lower order (ties share band+place).
   */
  int band;

  long place;
  long order;

  /** The rank recorded by the operator; ordering uses {@link #band}. */
  int rank;

  long issuedAt;
  long lastActivity;
  long lastPoll;
  long cookiesSentAt;
  long readyAt;
  String clientKey;
  byte state;
  boolean seen;
  boolean polled;
  boolean reloaded; // the last accepted poll was a reload of the waiting page
  boolean hasPass;
  boolean promoted;
  boolean told;
  boolean resend;

  // Treap links and aggregates, maintained by LineIndex.
  Ticket left;
  Ticket right;
  int priority;
  int size;
  int heads;
  boolean head;

  Ticket(long hi, long lo, long number) {
    this.hi = hi;
    this.lo = lo;
    this.number = number;
  }

  boolean sameGroup(Ticket other) {
    return other != null && band == other.band && place == other.place;
  }

  /** Compares ordering keys: negative when this ticket waits ahead of {@code o}. */
  int compareTo(Ticket o) {
    if (band != o.band) {
      return band > o.band ? -1 : 1;
    }
    if (place != o.place) {
      return place < o.place ? -1 : 1;
    }
    return Long.compare(order, o.order);
  }
}
