package dev.room.engine;

/**
 * One queued client: its token, its place in line and its liveness clock.
 *
 * <p>A waiting ticket holds its slot in the {@link LineIndex}, so its position is counted from the
 * slot without a key search. Every field is guarded by the owning {@link InMemoryLine}'s lock.
 */
final class Ticket {
  static final byte WAITING = 1;
  static final byte READY = 2;
  static final byte GONE = 3;

  // Field order is layout: HotSpot places the first int in the header's spare 4 bytes, then the
  // longs in declaration order, then ints, bytes and references. A status poll reads the token, the
  // liveness clock, the slot and the flags; declared so, they span about 72 bytes (two cache lines)
  // instead of the whole ticket (three lines for most tickets), and a poll at 10 million
  // waiting is mostly cache misses.

  /**
   * The band of clients restored as ready without a slot to go with it (they were called before the
   * restart): above every rank's band, so they stay first in line, in the order of the file.
   */
  static final int CALLED = Integer.MAX_VALUE;

  /**
   * {@link #cookiesSentAt} of a restored ticket: its cookies go with its next poll whatever the
   * time. A sentinel rather than a flag: the poll reads the time anyway, so it tests one field.
   */
  static final long COOKIES_DUE = Long.MIN_VALUE;

  /** No slot: not in a line index. */
  static final int NO_SLOT = Integer.MIN_VALUE;

  /**
   * Ordering key: higher band first, then lower place, then lower order (ties share band+place).
   * Within a tie the promoted members come first, in the order they were promoted, and the member
   * holding the place (not {@link #promoted}) last: a promotion takes a fresh order and gives the
   * holder a fresher one. A rank moves a ticket into a band below {@link #CALLED}.
   */
  int band;

  /** Arrival number from the ticket counter; never changes. */
  final long number;

  long place;
  long order;

  /** The token; changes only when the ticket's identity takes its place to another device. */
  long hi;

  long lo;
  long lastActivity;
  long issuedAt;
  long lastPoll;

  /** When the cookies were last sent, or {@link #COOKIES_DUE}. */
  long cookiesSentAt;

  long readyAt;

  /**
   * Its slot in the {@link LineIndex} while it waits ({@link LineSlots}), else {@link #NO_SLOT}.
   */
  int slot = NO_SLOT;

  /**
   * The rank recorded by the operator. Ordering reads {@link #band}, which is never below it: a
   * rank move lands in a band at least its rank, and a lowered rank keeps the band (so the ticket
   * does not move back) while later rank moves compare against the recorded rank.
   */
  int rank;

  byte state;

  /**
   * The ticket's yes/no facts, one bit each (a boolean field apiece would take a byte each and
   * round the ticket up from 120 to 128 bytes); read and written through the accessors below.
   */
  private byte flags;

  private static final int SEEN = 1;
  private static final int POLLED = 1 << 1;
  private static final int RELOADED = 1 << 2;
  private static final int HAS_PASS = 1 << 3;
  private static final int PROMOTED = 1 << 4;
  private static final int TOLD = 1 << 5;
  private static final int AWAY = 1 << 6;

  private boolean is(int bit) {
    return (flags & bit) != 0;
  }

  private void set(int bit, boolean on) {
    flags = (byte) (on ? flags | bit : flags & ~bit);
  }

  /** Heard from (a poll or a claim) since it was issued. */
  boolean seen() {
    return is(SEEN);
  }

  void seen(boolean on) {
    set(SEEN, on);
  }

  /** Has had a poll accepted; {@link #lastPoll} is its time. */
  boolean polled() {
    return is(POLLED);
  }

  void polled(boolean on) {
    set(POLLED, on);
  }

  /** The last accepted poll was a reload of the waiting page. */
  boolean reloaded() {
    return is(RELOADED);
  }

  void reloaded(boolean on) {
    set(RELOADED, on);
  }

  /** Came in with a pass (to the front). */
  boolean hasPass() {
    return is(HAS_PASS);
  }

  void hasPass(boolean on) {
    set(HAS_PASS, on);
  }

  /** Tied into a place another ticket got first (promotion or pass); false for the holder. */
  boolean promoted() {
    return is(PROMOTED);
  }

  void promoted(boolean on) {
    set(PROMOTED, on);
  }

  /** A ready ticket whose client has been told so. */
  boolean told() {
    return is(TOLD);
  }

  void told(boolean on) {
    set(TOLD, on);
  }

  /**
   * Not heard from since it was restored or since its offer lapsed. A waiting ticket that is away
   * keeps its place but is passed over when a slot is handed on; a ready one that is away was
   * offered before its client was heard from (after an import), so its offer lapses after the
   * shorter {@link dev.room.spi.Policy#awayOfferWindow() window}. A poll or claim clears it.
   */
  boolean away() {
    return is(AWAY);
  }

  void away(boolean on) {
    set(AWAY, on);
  }

  String clientKey;

  /** The ready list's links, maintained by {@link ServingWindow} while the ticket is ready. */
  Ticket left;

  Ticket right;

  Ticket(long hi, long lo, long number) {
    this.hi = hi;
    this.lo = lo;
    this.number = number;
  }

  /** A probe for index searches: a ticket with only an ordering key. */
  static Ticket probe(int band, long place, long order) {
    Ticket k = new Ticket(0, 0, 0);
    k.band = band;
    k.place = place;
    k.order = order;
    return k;
  }

  /** A probe holding {@code t}'s ordering key, for resuming a walk after {@code t}. */
  static Ticket keyOf(Ticket t) {
    return probe(t.band, t.place, t.order);
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
