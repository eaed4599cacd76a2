package dev.room;

/** What a slot of a {@link WaitingRoom} is held by. */
public enum AdmissionMode {
  /** A slot is held by one request, from admission until its response completes (default). */
  REQUESTS,
  /**
   * A slot is held by a shopping session, from the visitor's claim until it leaves, checks out, is
   * revoked or expires; requests carrying a valid signed grant pass without queueing.
   */
  SESSIONS
}
