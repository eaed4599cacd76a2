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
  // longs, ints and references: 64 bytes. What a status poll reads and writes lives in the
  // ticket's record (TicketRecords), which its token names: one cache miss a poll at 10 million
  // waiting, where a hash table of tickets cost two.

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

  /** Its record in {@link #records}, or -1 once it has ended (or for a probe). */
  private int rec;

  /**
   * The rank recorded by the operator. Ordering reads {@link #band}, which is never below it: a
   * rank move lands in a band at least its rank, and a lowered rank keeps the band (so the ticket
   * does not move back) while later rank moves compare against the recorded rank.
   */
  int rank;

  private final TicketRecords records;

  static final int SEEN = 1;
  static final int POLLED = 1 << 1;
  static final int RELOADED = 1 << 2;
  static final int HAS_PASS = 1 << 3;
  static final int PROMOTED = 1 << 4;
  static final int TOLD = 1 << 5;
  static final int AWAY = 1 << 6;

  /** A ticket in record {@code rec} of {@code records}, which the caller has just taken for it. */
  Ticket(TicketRecords records, int rec, long number) {
    this.records = records;
    this.rec = rec;
    this.number = number;
  }

  private Ticket(long number) {
    this.records = null;
    this.rec = -1;
    this.number = number;
  }

  /** Its record; throws once the ticket has ended, whose record another ticket may now hold. */
  int rec() {
    if (rec < 0) {
      throw new IllegalStateException("the ticket has ended");
    }
    return rec;
  }

  TicketRecords records() {
    return records;
  }

  /** Ends the ticket: its record, already out of the token store, goes back to be reused. */
  void end() {
    if (rec >= 0) {
      records.free(rec);
      rec = -1;
    }
  }

  /** {@link #WAITING}, {@link #READY}, {@link #GONE} once ended, 0 before it is placed. */
  byte state() {
    return rec < 0 ? GONE : records.state(rec);
  }

  void state(byte state) {
    records.state(rec(), state);
  }

  /** The token; changes only when the ticket's identity takes its place to another device. */
  long hi() {
    return records.get(rec(), TicketRecords.HI);
  }

  long lo() {
    return records.get(rec(), TicketRecords.LO);
  }

  long lastActivity() {
    return records.get(rec(), TicketRecords.LAST_ACTIVITY);
  }

  void lastActivity(long v) {
    records.set(rec(), TicketRecords.LAST_ACTIVITY, v);
  }

  long issuedAt() {
    return records.get(rec(), TicketRecords.ISSUED_AT);
  }

  void issuedAt(long v) {
    records.set(rec(), TicketRecords.ISSUED_AT, v);
  }

  long lastPoll() {
    return records.get(rec(), TicketRecords.LAST_POLL);
  }

  void lastPoll(long v) {
    records.set(rec(), TicketRecords.LAST_POLL, v);
  }

  /** When the cookies were last sent, or {@link #COOKIES_DUE}. */
  long cookiesSentAt() {
    return records.get(rec(), TicketRecords.COOKIES_SENT_AT);
  }

  void cookiesSentAt(long v) {
    records.set(rec(), TicketRecords.COOKIES_SENT_AT, v);
  }

  long readyAt() {
    return records.get(rec(), TicketRecords.READY_AT);
  }

  void readyAt(long v) {
    records.set(rec(), TicketRecords.READY_AT, v);
  }

  /**
   * Its slot in the {@link LineIndex} while it waits ({@link LineSlots}), else {@link #NO_SLOT}.
   */
  int slot() {
    return rec < 0 ? NO_SLOT : records.slot(rec);
  }

  void slot(int slot) {
    records.slot(rec(), slot);
  }

  private boolean is(int bit) {
    return records.is(rec(), bit);
  }

  private void set(int bit, boolean on) {
    records.flag(rec(), bit, on);
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

  /** A probe for index searches: a ticket with only an ordering key. */
  static Ticket probe(int band, long place, long order) {
    Ticket k = new Ticket(0);
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
