package dev.room;

import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's callbacks on the request path (capacity controller, rate, client-key and bypass
 * functions) are untrusted: a throw is caught where it is called, counted, and logged at most once
 * a minute on the room's clock, and the request carries on as if the callback had no opinion. A bug
 * in one never costs a slot or shows a visitor a 500.
 */
final class UserCode {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingRoom.class);
  static final long LOG_EVERY_MILLIS = 60_000;

  private final InstantSource clock;
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong nextLogAt = new AtomicLong(Long.MIN_VALUE);

  UserCode(InstantSource clock) {
    this.clock = clock;
  }

  /**
   * Records that the callback {@code what} threw {@code e}. Anything a callback throws counts, an
   * {@code Error} or a checked exception thrown undeclared (Kotlin, {@code @SneakyThrows}) too;
   * only the JVM's own failures ({@link VirtualMachineError}: out of memory, stack overflow) are
   * thrown on, since nothing is sound after one.
   */
  void failed(String room, String what, Throwable e) {
    if (e instanceof VirtualMachineError fatal) {
      throw fatal;
    }
    long n = failures.incrementAndGet();
    long now = clock.millis();
    long next = nextLogAt.get();
    if (now >= next && nextLogAt.compareAndSet(next, now + LOG_EVERY_MILLIS)) {
      LOG.warn(
          "room {}: the {} threw; the request carried on without it ({} such failures so far,"
              + " logged at most once a minute)",
          room,
          what,
          n,
          e);
    }
  }

  long failures() {
    return failures.get();
  }
}
