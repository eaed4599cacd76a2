package dev.room.spi;

/**
 * Where a line reports each change an admission log needs to prove its order, inside the atomic
 * step that makes the change, so the record's order is the line's own.
 *
 * <p>A ticket is named by its arrival number, never by its token. Its ordering key is {@code band}
 * (higher first), {@code place}, then {@code order}, as in {@link LineEntry}; {@link #TIED} marks a
 * ticket tied into a place another holds. A freed slot goes to the first <em>present</em> waiter
 * (see {@link Line}), so the journal also reports when a ticket goes away and comes back.
 *
 * <p>Called with the line's lock held: an implementation must be quick, must not block, must not
 * throw and must not call back into the line. {@link #NONE} records nothing.
 */
public interface LineJournal {
  /** A ticket joined the line at its key. */
  int ARRIVE = 1;

  /** A waiting ticket took a new key; the reason is one of the {@code WHY_} values in the flags. */
  int MOVE = 2;

  /**
   * A waiting ticket was offered a slot (it became ready); {@link #AWAY} when offered before its
   * client was heard from (after an import, the first in line are offered whoever polls first).
   */
  int OFFER = 3;

  /** A ready ticket took its slot; the ticket ends. */
  int ADMIT = 4;

  /** A ready ticket's offer lapsed: it waits again at its key, {@link #AWAY} or not. */
  int LAPSE = 5;

  /** A ticket away (passed over) was heard from at {@code place}: it is present again. */
  int PRESENT = 6;

  /** A ticket was removed by the operator; it ends. */
  int REMOVE = 7;

  /** A ticket expired (TTL or first-poll grace) and was reclaimed; it ends. */
  int EXPIRE = 8;

  /** A fast-path admission under a limited allowance (nobody waited); no ticket. */
  int ENTER = 9;

  /** The allowance is now {@code place} ({@link Line#UNLIMITED} for none; 0 holds the line). */
  int ALLOWANCE = 10;

  /** The capacity is now {@code place}. */
  int CAPACITY = 11;

  /**
   * A ticket already in line when the journal was attached (after an import, say): one for each,
   * ready ones first ({@link #READY}), then the waiting in line order; then the capacity and the
   * allowance. The log starts from this checkpoint.
   */
  int HELD = 12;

  /**
   * A ticket's client was silent for the presence window ({@link Line#lapseAbsent}): a waiting
   * ticket is passed over (it is away until heard from), a ready one's untold offer lapses (a
   * {@link #LAPSE}, away, follows). {@code place} is when its client was last heard from, {@code
   * order} the window.
   */
  int ABSENT = 13;

  /** Flag on {@link #HELD}: the ticket is ready (offered a slot). */
  long READY = 4;

  /** Flag: the ticket is tied into a place another ticket holds. */
  long TIED = 1;

  /** Flag: the ticket is away (it is passed over until heard from). */
  long AWAY = 2;

  /** Why a {@link #MOVE}: a promotion (operator, paid or a pass at arrival). */
  long WHY_PROMOTE = 1 << 8;

  /** Why a {@link #MOVE}: a rank, or a re-keying behind one. */
  long WHY_RANK = 2 << 8;

  /** Why a {@link #MOVE}: the pre-sale draw. */
  long WHY_DRAW = 3 << 8;

  /** Why a {@link #MOVE}: a place's holder took a fresher order behind a client tied into it. */
  long WHY_TIE = 4 << 8;

  /** The mask of the {@code WHY_} values. */
  long WHY_MASK = 0xF << 8;

  /** A journal that records nothing. */
  LineJournal NONE =
      new LineJournal() {
        @Override
        public void record(int kind, long number, int band, long place, long order, long flags) {}

        @Override
        public void drawn(long[] group) {}
      };

  /** Records one change; see the kinds above. Fields a kind does not use are 0. */
  void record(int kind, long number, int band, long place, long order, long flags);

  /**
   * The pre-sale draw is about to reorder {@code group} (arrival numbers, in line order); one
   * {@link #MOVE} with {@link #WHY_DRAW} follows for each of them.
   */
  void drawn(long[] group);

  /**
   * A room-level fact, from the room rather than the line: {@code mode} (the new mode), {@code
   * presale} (the seed's SHA-256, published before the draw) or {@code reveal} (the seed, just
   * before the draw).
   */
  default void note(String kind, String value) {}

  /**
   * For a line that cannot journal: what this instance saw of a ticket it served ({@link #ARRIVE}
   * with its position, {@link #ADMIT}). The journal keeps only an unlinkable digest of the token.
   */
  default void observed(int kind, long hi, long lo, long position) {}
}
