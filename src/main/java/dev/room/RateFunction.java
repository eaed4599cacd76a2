package dev.room;

import java.math.BigDecimal;

/**
 * Prices skip-the-line moves: the cost of one position, given the live queue depth. Called on
 * status polls too: one that throws there leaves the price out of that poll's answer (counted in
 * {@link WaitingRoom#callbackFailures()}).
 */
@FunctionalInterface
public interface RateFunction {
  /**
   * Returns the price of moving forward one position.
   *
   * @param queueDepth the number of tickets waiting now
   */
  BigDecimal ratePerPosition(long queueDepth);
}
