package dev.room;

import java.math.BigDecimal;

/** Prices skip-the-line moves: the cost of one position, given the live queue depth. */
@FunctionalInterface
public interface RateFunction {
  /**
   * Returns the price of moving forward one position.
   *
   * @param queueDepth the number of tickets waiting now
   */
  BigDecimal ratePerPosition(long queueDepth);
}
