package dev.room;

/**
 * The room's state when an event fired.
 *
 * @param event what happened
 * @param occupancy requests holding a slot
 * @param capacity the number of slots
 * @param queueDepth tickets waiting
 * @param token the ticket's bearer token where the event concerns one, else {@code ""}; never log
 *     it
 * @param clientKey the ticket's client key where known, else {@code ""}
 * @param staleTicket on {@link Event#QUEUE}: the request carried a {@code room_ticket} the room no
 *     longer recognises (typically a visitor who was already admitted)
 * @param detail why, where an event has several causes: {@link Event#SESSION_END} {@code left},
 *     {@code revoked}, {@code completed}, {@code ended} or {@code generation}; {@link
 *     Event#GRANT_REJECTED} {@code tampered}, {@code foreign}, {@code expired} or {@code revoked};
 *     else {@code ""}
 */
public record Snapshot(
    Event event,
    int occupancy,
    int capacity,
    long queueDepth,
    String token,
    String clientKey,
    boolean staleTicket,
    String detail) {

  /** A snapshot without a detail. */
  public Snapshot(
      Event event,
      int occupancy,
      int capacity,
      long queueDepth,
      String token,
      String clientKey,
      boolean staleTicket) {
    this(event, occupancy, capacity, queueDepth, token, clientKey, staleTicket, "");
  }

  /** Whether every slot was taken. */
  public boolean full() {
    return occupancy >= capacity;
  }

  /** Whether no slot was taken. */
  public boolean empty() {
    return occupancy == 0;
  }

  /** Redacts the token: snapshots end up in logs. */
  @Override
  public String toString() {
    return "Snapshot[event="
        + event
        + ", occupancy="
        + occupancy
        + ", capacity="
        + capacity
        + ", queueDepth="
        + queueDepth
        + ", token="
        + (token.isEmpty() ? "" : "<redacted>")
        + ", clientKey="
        + clientKey
        + ", staleTicket="
        + staleTicket
        + ", detail="
        + detail
        + "]";
  }
}
