package dev.room.spi;

/**
 * What the room's join guard keeps where every instance of a line sees it: how many tickets each
 * client key took in a minute, which proof-of-work challenges are spent, and the secret challenges
 * are signed with. The policy (limits, windows, what a solution proves) is the room's; a ledger
 * only stores, each operation atomic on its own. A line that is not shared has none ({@link
 * Line#joinLedger()} returns null) and the room keeps one in memory.
 */
public interface JoinLedger {

  /**
   * Counts one join by {@code key} in the window numbered {@code window}, and returns the window's
   * count including this one. The count may be forgotten once {@code forgetAfter} (epoch millis)
   * has passed: windows are numbered from the caller's clock, so an expiry only frees storage.
   */
  long countJoin(String key, long window, long forgetAfter, long now);

  /**
   * Marks challenge {@code id} spent until {@code expiresAt}; true for the first call with an id,
   * false for every later one while it is remembered (a replay).
   */
  boolean spend(String id, long expiresAt, long now);

  /** The secret challenges are signed with: the same for every instance sharing this ledger. */
  byte[] secret();
}
