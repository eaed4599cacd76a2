package dev.room;

import java.math.BigDecimal;

/**
 * The result of a paid promotion.
 *
 * @param cost what the move cost: positions moved × rate per position
 * @param fromPosition the position before the move
 * @param toPosition the position after it (equal to {@code fromPosition} when nothing moved)
 * @param passToken a VIP pass to set as the {@code room_pass} cookie, or {@code ""} when passes are
 *     off; a bearer credential
 */
public record PromoteResult(BigDecimal cost, long fromPosition, long toPosition, String passToken) {

  /** Redacts the pass token. */
  @Override
  public String toString() {
    return "PromoteResult[cost="
        + cost
        + ", fromPosition="
        + fromPosition
        + ", toPosition="
        + toPosition
        + ", passToken="
        + (passToken.isEmpty() ? "" : "<redacted>")
        + "]";
  }
}
