package dev.room.engine;

import dev.room.spi.Line;
import dev.room.spi.LineJournal;

/**
 * The serving window's allowance: how many more the line may admit ({@link Line#UNLIMITED} for no
 * limit), set outright, added to, held at 0 ({@link Line#hold}) or kept as the content of the
 * admission-rate {@link RateBucket} ({@link Line#meter}, {@link Line#refill}).
 *
 * <p>The value and the time it last changed are volatile: the fast path reads them without the
 * lock. Everything else is guarded by the owning line's lock. A change is journalled through the
 * window and hands free slots on by its {@link ServingWindow#rebalance}.
 */
final class Allowance {
  private final ServingWindow window;
  private volatile long value = Line.UNLIMITED;
  private volatile long changedAt;
  private boolean held; // Line.hold: the allowance is 0 and stays so until the hold is lifted
  private final RateBucket bucket = new RateBucket(); // Line.meter: the admission rate

  Allowance(ServingWindow window) {
    this.window = window;
  }

  long value() {
    return value;
  }

  /** When the allowance last changed; stands in for now when the fast path gives a slot back. */
  long changedAt() {
    return changedAt;
  }

  /** Uses one admission of a limited allowance. */
  void take() {
    if (value != Line.UNLIMITED) {
      value--;
    }
  }

  void set(long allowance, long now) {
    if (held) {
      return;
    }
    bucket.stop(); // an allowance set outright replaces the rate
    this.value = allowance;
    changedAt = now;
    window.journal.record(LineJournal.ALLOWANCE, 0, 0, allowance, 0, 0);
    window.rebalance(now);
  }

  /**
   * {@link Line#hold}: while held the allowance is 0 and neither set nor refilled; once lifted it
   * stays 0 until set.
   */
  void hold(boolean hold, long now) {
    if (hold && !held) {
      bucket.bank(bucket.metered() ? value : 0); // a metered line keeps its bucket's content
      if (value != 0) {
        value = 0;
        window.journal.record(LineJournal.ALLOWANCE, 0, 0, 0, 0, 0);
      }
      changedAt = now;
    } else if (!hold && held && bucket.metered()) {
      held = false;
      store(bucket.banked(), now);
      bucket.bank(0);
    }
    held = hold;
  }

  // rate bucket (u1-rate)
  /**
   * {@link Line#meter}: the bucket is this allowance's; its content is the allowance unless held.
   */
  long meter(double perSecond, long burst, long now) {
    if (!(perSecond > 0)) {
      if (bucket.metered()) {
        bucket.stop();
        if (!held) {
          store(Line.UNLIMITED, now);
        }
      }
      return Long.MAX_VALUE;
    }
    if (bucket.metered()) {
      store(bucket.change(perSecond, burst, bucket.accrue(content(), now)), now);
    } else {
      bucket.start(perSecond, burst, now);
      store(burst, now); // a new bucket starts full
    }
    return bucket.nextAt();
  }

  /** {@link Line#refill}: adds what accrued since the last refill, by whichever room. */
  long refill(long now) {
    if (!bucket.metered()) {
      return Long.MAX_VALUE;
    }
    store(bucket.accrue(content(), now), now);
    return bucket.nextAt();
  }

  private long content() {
    return held ? bucket.banked() : value;
  }

  /** Puts {@code content} in the bucket: the allowance, or set aside while held. */
  private void store(long content, long now) {
    if (held) {
      bucket.bank(content);
      return;
    }
    if (content != value) {
      value = content;
      changedAt = now;
      window.journal.record(LineJournal.ALLOWANCE, 0, 0, content, 0, 0);
      window.rebalance(now);
    }
  }

  // end rate bucket

  void add(long n, long max, long now) {
    if (held) {
      return;
    }
    long a = value;
    if (a != Line.UNLIMITED && a < max && n > 0) {
      value = a + Math.min(n, max - a);
      changedAt = now;
      window.journal.record(LineJournal.ALLOWANCE, 0, 0, value, 0, 0);
    }
    window.rebalance(now);
  }

  /**
   * Checks the allowance and its bucket, as part of {@link ServingWindow#checkInvariants}.
   *
   * @throws IllegalStateException naming the first invariant that does not hold
   */
  void checkInvariants() {
    if (value < 0) {
      throw new IllegalStateException("line invariant broken: negative allowance");
    }
    bucket.checkInvariants(value, held);
  }
}
