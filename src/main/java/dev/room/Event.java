package dev.room;

/** What happened in a room, as delivered to handlers registered with {@link WaitingRoom#on}. */
public enum Event {
  /** A request took a slot. */
  ENTER,
  /** A request gave its slot back. */
  EXIT,
  /** The room became full (edge: fires once until {@link #DRAIN}). */
  FULL,
  /** The room stopped being full (edge). */
  DRAIN,
  /** A request was issued a waiting-room ticket; carries the token and client key. */
  QUEUE,
  /** An expired or never-seen ticket was reclaimed, whether it was waiting or offered a slot. */
  EVICT,
  /**
   * A client entitled to a slot gave up before taking it: it was told it is ready and did not come
   * in within the offer timeout. Its offer lapsed and the slot went to the next client in line; the
   * ticket keeps its place and is offered the next slot when its client is heard from again, so
   * this is not an ending. An offer its client was never told of passes on without this event.
   */
  TIMEOUT,
  /** A paid, operator or VIP-pass promotion moved a ticket; carries the token. */
  PROMOTE,
  /** {@code removeToken} (one event, with the token) or {@code removeTokensIf} (one per call). */
  REMOVE,
  /** {@code setTicketRank} moved a ticket ahead of lower ranks; carries the token. */
  RANK,
  /** A new arrival was turned away because the line was at its maximum depth. */
  REJECT,
  /** SESSIONS mode: a waiting visitor learned it may come in (its offer); carries the token. */
  OFFER,
  /** SESSIONS mode: a visitor claimed its slot and a shopping session began; token = session id. */
  CLAIM,
  /** SESSIONS mode: a session ended (left, revoked, completed, ended, generation). */
  SESSION_END,
  /** SESSIONS mode: a session ran out of time. */
  SESSION_EXPIRE,
  /** A {@code room_session} grant was refused (tampered, foreign, expired, revoked). */
  GRANT_REJECTED,
  /**
   * The room's {@link RoomMode} changed; {@link Snapshot#detail()} is the new mode in lower case
   * ({@code open}, {@code queue_all}, {@code paused}, {@code passthrough}, {@code closed}).
   */
  MODE
}
