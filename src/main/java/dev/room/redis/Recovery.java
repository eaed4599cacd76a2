package dev.room.redis;

import dev.room.spi.LineUnavailableException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an instance puts right when Redis comes back: the tickets of clients it let in while Redis
 * was down (fail-open), and the room's state when Redis lost it.
 *
 * <p>A client let in during an outage still has its ticket in Redis, near the front; left there it
 * would be offered every free slot and never claim one, blocking everyone behind it. So each such
 * ticket is remembered here (at most {@value #MAX_REMEMBERED}; beyond that the oldest stay and the
 * rest age out of the line by their TTL) and retired once Redis answers again.
 *
 * <p>When Redis lost the room (a restart without persistence: the lease registry's epoch changed),
 * the line is gone and cannot be brought back; the instance re-sends its capacity and backs the
 * requests it still runs again ({@link InstanceLease}), and this class logs it and counts it.
 */
final class Recovery {
  static final int MAX_REMEMBERED = 100_000;
  static final int BATCH = 500;
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private final String roomId;
  private final Set<String> letIn = ConcurrentHashMap.newKeySet();
  private final AtomicLong losses = new AtomicLong();
  private final AtomicLong retired = new AtomicLong();
  private volatile boolean full;

  Recovery(String roomId) {
    this.roomId = roomId;
  }

  /** A waiting client was let in while Redis was down: its ticket goes when Redis returns. */
  void letIn(String token) {
    if (letIn.size() < MAX_REMEMBERED) {
      letIn.add(token);
    } else if (!full) {
      full = true;
      LOG.warn(
          "room {}: over {} clients let in while Redis is down; the rest keep their tickets until"
              + " their TTL",
          roomId,
          MAX_REMEMBERED);
    }
  }

  /** Whether tickets wait to be retired. */
  boolean pending() {
    return !letIn.isEmpty();
  }

  /**
   * Retires the remembered tickets through {@code remove} (given a batch, returns how many the line
   * still had); stops at the first batch that cannot reach Redis and keeps the rest.
   */
  void retire(ToIntFunction<List<String>> remove) {
    int n = 0;
    try {
      List<String> batch = new ArrayList<>(BATCH);
      for (Iterator<String> it = letIn.iterator(); it.hasNext(); ) {
        batch.add(it.next());
        if (batch.size() == BATCH || !it.hasNext()) {
          n += remove.applyAsInt(batch);
          batch.forEach(letIn::remove);
          batch.clear();
        }
      }
    } catch (LineUnavailableException e) {
      // the next beat carries on
    } finally {
      full = false;
      if (n > 0) {
        retired.addAndGet(n);
        LOG.info("room {}: retired {} tickets of clients let in while Redis was down", roomId, n);
      }
    }
  }

  /** Redis lost the room's state; the line with it. */
  void lost(int capacity) {
    losses.incrementAndGet();
    LOG.warn(
        "room {}: Redis lost the room's state (restarted without persistence?): everyone waiting"
            + " lost their place and joins again as a new arrival; capacity {} and this instance's"
            + " running requests are re-established",
        roomId,
        capacity);
  }

  long losses() {
    return losses.get();
  }

  long retired() {
    return retired.get();
  }
}
