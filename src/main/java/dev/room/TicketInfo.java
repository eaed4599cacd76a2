package dev.room;

import java.time.Instant;

/**
 * One client in line, as the admin reads see it.
 *
 * @param token the client's bearer token; never log it
 * @param position place in line, 1 = next; {@code <= 0} means told ready and not yet back. Clients
 *     tied by a promotion report equal positions
 * @param clientKey the application-defined key, or {@code ""}
 * @param issuedAt when the ticket was issued (or restored by an import)
 * @param lastPoll the last accepted status poll, or {@code null} before the first
 * @param seen whether the client has come back at least once
 * @param hasPass whether the ticket entered with a valid VIP pass
 * @param rank the rank the operator recorded (0 = none)
 */
public record TicketInfo(
    String token,
    long position,
    String clientKey,
    Instant issuedAt,
    Instant lastPoll,
    boolean seen,
    boolean hasPass,
    int rank) {

  /** Redacts the token: ticket infos end up in logs. */
  @Override
  public String toString() {
    return "TicketInfo[token=<redacted>, position="
        + position
        + ", clientKey="
        + clientKey
        + ", issuedAt="
        + issuedAt
        + ", lastPoll="
        + lastPoll
        + ", seen="
        + seen
        + ", hasPass="
        + hasPass
        + ", rank="
        + rank
        + "]";
  }
}
