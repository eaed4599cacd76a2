package dev.room;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves by hand. Starts at an odd origin to flush out arithmetic bugs. */
public final class FakeClock implements InstantSource {
  private final AtomicLong millis;

  public FakeClock() {
    this(1_700_000_000_123L);
  }

  public FakeClock(long originMillis) {
    this.millis = new AtomicLong(originMillis);
  }

  public void advance(Duration d) {
    millis.addAndGet(d.toMillis());
  }

  public void advanceMillis(long ms) {
    millis.addAndGet(ms);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }
}
