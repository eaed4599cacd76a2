package dev.room.spi;

/**
 * One ticket as a line exports and restores it.
 *
 * <p>Ordering is by {@code band} (higher first), then {@code place}, then {@code order}; tickets
 * sharing band and place are tied. Within a tie the {@code promoted} members come first (in the
 * order they were promoted) and the one holding the place last. A ready ticket (told to come in)
 * sorts ahead of every waiting one in the export.
 *
 * @param hi the token's high half
 * @param lo the token's low half
 * @param band the ordering band (a rank the ticket moved into; 0 = none)
 * @param place the place within the band
 * @param order the order within a tie
 * @param rank the rank recorded by the operator
 * @param issuedAt epoch millis
 * @param lastActivity epoch millis of the last poll or reload
 * @param lastPoll epoch millis of the last accepted poll, or {@code Long.MIN_VALUE} for none
 * @param seen whether the client came back at least once
 * @param hasPass whether the ticket entered with a VIP pass
 * @param ready whether the ticket had been told to come in
 * @param clientKey the client key, or {@code ""}
 * @param promoted whether the ticket is tied into a place another ticket holds (a promotion or a
 *     pass), rather than holding its own
 * @param number the ticket's arrival number, or 0 when unknown
 * @param identity the salted hash of the identity the ticket is bound to ({@link Identities#hash}),
 *     or null for an anonymous one
 */
public record LineEntry(
    long hi,
    long lo,
    int band,
    long place,
    long order,
    int rank,
    long issuedAt,
    long lastActivity,
    long lastPoll,
    boolean seen,
    boolean hasPass,
    boolean ready,
    String clientKey,
    boolean promoted,
    long number,
    String identity) {

  /** An anonymous entry. */
  public LineEntry(
      long hi,
      long lo,
      int band,
      long place,
      long order,
      int rank,
      long issuedAt,
      long lastActivity,
      long lastPoll,
      boolean seen,
      boolean hasPass,
      boolean ready,
      String clientKey,
      boolean promoted,
      long number) {
    this(
        hi,
        lo,
        band,
        place,
        order,
        rank,
        issuedAt,
        lastActivity,
        lastPoll,
        seen,
        hasPass,
        ready,
        clientKey,
        promoted,
        number,
        null);
  }

  /**
   * An entry as exports before ties recorded who holds a place: a waiting ticket holds its place
   * when its order equals its place (its arrival number, or its rank move's), and is tied into it
   * otherwise.
   */
  public LineEntry(
      long hi,
      long lo,
      int band,
      long place,
      long order,
      int rank,
      long issuedAt,
      long lastActivity,
      long lastPoll,
      boolean seen,
      boolean hasPass,
      boolean ready,
      String clientKey) {
    this(
        hi,
        lo,
        band,
        place,
        order,
        rank,
        issuedAt,
        lastActivity,
        lastPoll,
        seen,
        hasPass,
        ready,
        clientKey,
        !ready && place != order,
        order);
  }

  /**
   * Whether a reader must be told this ticket holds its place: it does, but its order no longer
   * equals its place (a promotion into its tie gave it a fresher order, or the draw or a rank move
   * gave it a new place), so the rule of the older exports would read it as tied.
   */
  public boolean holdsPlaceOffOrder() {
    return !ready && !promoted && place != order;
  }
}
