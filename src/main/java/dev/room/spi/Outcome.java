package dev.room.spi;

/**
 * Decodes the {@code long} that a line's hot-path operations return.
 *
 * <p>Polls and arrivals happen tens of thousands of times a second, so their result is packed into
 * one primitive instead of an object: a kind, a position and a few flags.
 */
public final class Outcome {
  /** The token is not in the line: unknown, expired, removed or already admitted. */
  public static final int UNKNOWN = 0;

  /** The ticket waits; {@link #position} is its place (1 = next). */
  public static final int WAITING = 1;

  /** The ticket has been told it is ready and holds a reserved slot. */
  public static final int READY = 2;

  /** The caller now holds a slot and must give it back with {@link Line#exit(long)}. */
  public static final int ADMITTED = 3;

  /** The line is at its maximum depth; the arrival was turned away. */
  public static final int REJECTED = 4;

  /**
   * The token's place moved to another device: the same identity joined again there, and the place
   * is now held under that device's token (see {@link Line#arrive(long, long, String, String,
   * boolean, long, Policy)}).
   */
  public static final int MOVED = 5;

  /** The poll came sooner than the poll interval; the ticket was kept alive. */
  public static final long RATE_LIMITED = 1L << 48;

  /** The caller should re-send the client's cookies. */
  public static final long REFRESH_COOKIES = 1L << 49;

  /**
   * The ticket was found expired by this call (TTL or first-poll grace) and retired, waiting or
   * ready. On an arrival with an identity: the place that identity held was found expired and
   * retired, and the arrival was judged as a newcomer.
   */
  public static final long EVICTED = 1L << 50;

  /**
   * This call found the ticket's offer lapsed after its client had been told (it did not come in
   * time): the slot went on and the ticket waits again at its own place, so the same outcome also
   * reports where it stands now (possibly offered again at once). A lapsed offer never ends a
   * ticket; only expiry does ({@link #EVICTED}).
   */
  public static final long TIMED_OUT = 1L << 51;

  /** The arrival was promoted to the front by a VIP pass. */
  public static final long PROMOTED = 1L << 52;

  /** This poll was the first to tell a ready ticket that it may come in (its offer). */
  public static final long FIRST_READY = 1L << 53;

  /**
   * The arrival's identity already held a place: the arrival took it over under its own token (no
   * new ticket was issued) and the previous token now reads {@link #MOVED}.
   */
  public static final long REJOINED = 1L << 54;

  private static final long POSITION_MASK = (1L << 40) - 1;

  private Outcome() {}

  /** Packs a kind, a position and flags. */
  public static long of(int kind, long position, long flags) {
    return ((long) kind << 40) | (position & POSITION_MASK) | flags;
  }

  public static int kind(long outcome) {
    return (int) ((outcome >>> 40) & 0xF);
  }

  public static long position(long outcome) {
    return outcome & POSITION_MASK;
  }

  public static boolean has(long outcome, long flag) {
    return (outcome & flag) != 0;
  }
}
