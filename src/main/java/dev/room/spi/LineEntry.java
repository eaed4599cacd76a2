package dev.room.spi;

/**
 * One ticket as a line exports and restores it.
 *
 * <p>Ordering is by {@code band} (higher first), then {@code place}, then {@code order}; tickets
 * sharing band and place are tied. A ready ticket (told to come in) sorts ahead of every waiting
 * one in the export.
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
    String clientKey) {}
