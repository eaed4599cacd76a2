package dev.room;

/**
 * The front: the first present client's position. Clients who stopped polling keep their places
 * until their tickets expire, so at the front of a busy line hundreds of them stand ahead of the
 * first one still there (the soak: 440 of 3,368 waiting, all near the front, where the line passes
 * over them); a band counted from position 1 then held nobody alive, and the live front was offered
 * between its polls, the slot idle until the next one. The band and the pace count from the
 * frontmost position polled in the last one to two seconds (the front polls every second), seen on
 * this instance.
 */
final class Front {
  private volatile long frontNow = Long.MAX_VALUE; // frontmost position polled in this second
  private volatile long frontBefore = Long.MAX_VALUE; // ... in the second before
  private volatile long frontSecond;

  /** A waiting client polled at {@code position}. Racy by design: a lost update is harmless. */
  void observe(long position, long now) {
    long second = now / HeadOfLine.FRONT_POLL_MILLIS;
    if (second != frontSecond) {
      frontBefore = second == frontSecond + 1 ? frontNow : Long.MAX_VALUE;
      frontNow = Long.MAX_VALUE;
      frontSecond = second;
    }
    if (position > 0 && position < frontNow) {
      frontNow = position;
    }
  }

  /** Where the first present client stands, 1 when nobody polled lately. */
  long front(long now) {
    long second = now / HeadOfLine.FRONT_POLL_MILLIS;
    long last = frontSecond;
    long f =
        second == last
            ? Math.min(frontNow, frontBefore)
            : second == last + 1 ? frontNow : Long.MAX_VALUE;
    return f == Long.MAX_VALUE ? 1 : f;
  }

  /** {@code position} counted from the first present client (1 for it and anyone ahead). */
  long fromFront(long position, long now) {
    return position <= 0 ? position : Math.max(1, position - front(now) + 1);
  }
}
