package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's copy of the room's tie groups ({@code heads}), enough to rank band 0: a bit per
 * place of band 0 below {@link #SPAN}, a Fenwick tree over the bits' words, and the groups of the
 * higher bands, which come first. A ZRANK of {@code heads} at a million groups was a third of a
 * batched poll's cost in Redis (docs/REDIS.md); a rank here is a prefix sum in this JVM.
 *
 * <p>The copy follows the heads log ({@code hlog}, lib/order.lua): every poll batch sends the
 * number of the last change it holds, and the reply carries the changes since, the copy's own last
 * one first (so that a log replaced behind it, by a failover to a replica that lagged, is noticed).
 * The script defers a band 0 poll's position to the copy only when the reply brings the copy up to
 * the script's own end state, so a rank taken after applying the reply is the position then or
 * later, never earlier. Each change sets a group present or absent (not a toggle), so replaying
 * changes the copy already reflects is harmless: a copy is read from {@code heads} page by page
 * while the line moves, then the changes since its start are replayed over it.
 *
 * <p>Thread-safe: one monitor guards the copy; the rank and the apply are short.
 */
final class HeadsMirror {
  private static final Logger LOG = LoggerFactory.getLogger(HeadsMirror.class);

  /** Band 0's places the copy ranks (ops/polls.lua's HSPAN): below it, at most 24 MB of copy. */
  static final long SPAN = 134_217_728L;

  private static final int PAGE = 5000;
  private static final long RETRY_MILLIS = 1000;
  private static final long UNLOGGED_RETRY_MILLIS = 30_000;
  // A count of heads is a skip-list walk: once a second, not once a batch.
  private static final long CHECK_MILLIS = 1000;

  /**
   * What a batch was sent with: the copy's identity, the last change it held, and whether the reply
   * is to carry the count of groups for the copy to check its own against.
   */
  record Since(long copy, long seq, String epoch, String gen, boolean check) {}

  private static final Since NONE = new Since(-1, -1, "0", "0", false);

  private final LineScripts scripts;
  private final InstantSource clock;
  private final String roomId;

  // guarded by this
  private final HeadsGroups groups = new HeadsGroups();
  private long copy; // which copy: a new one starts at each read of heads
  private long seq = -1; // the last change held; -1: no copy, the script ranks by ZRANK
  private String epoch = "0";
  private String gen = "0";
  private final long[] last = new long[4]; // the last change held: sign, band, place, stamp
  private boolean hasLast;
  private boolean reading;
  private long retryAt;
  private long nextCheck;
  private long ranked; // positions this copy gave, for tests
  private int failures; // reads that failed since the last that did not
  private int page = PAGE;
  private volatile boolean closed;

  HeadsMirror(LineScripts scripts, InstantSource clock, String roomId) {
    this.scripts = scripts;
    this.clock = clock;
    this.roomId = roomId;
  }

  /** What the next batch sends; without a copy, starts reading one (on a thread of its own). */
  Since since() {
    synchronized (this) {
      if (seq >= 0) {
        long now = clock.millis();
        boolean check = now >= nextCheck;
        if (check) {
          nextCheck = now + CHECK_MILLIS;
        }
        return new Since(copy, seq, epoch, gen, check);
      }
      if (reading || closed || clock.millis() < retryAt) {
        return NONE;
      }
      reading = true;
    }
    try {
      Thread t = new Thread(this::readCopy, "room-redis-heads");
      t.setDaemon(true);
      t.start();
    } catch (RuntimeException | OutOfMemoryError e) { // no thread to be had: rank in Redis
      synchronized (this) {
        reading = false;
        retryAt = clock.millis() + RETRY_MILLIS;
      }
    }
    return NONE;
  }

  /**
   * Applies the log part of a batch's reply, from {@code at}; returns false when the copy cannot
   * rank the batch's deferred polls (it was replaced, or found behind a log that is not its own).
   */
  synchronized boolean apply(Since sent, long[] reply, int at) {
    if (sent.copy != copy || seq < 0) {
      return false; // a copy since replaced, or none: the deferred polls ask Redis
    }
    if (reply[at] == 0) {
      drop("the copy is not of the room's heads log any more");
      return false;
    }
    long first = reply[at + 1];
    int n = (int) reply[at + 2];
    long kept = reply[at + 3];
    if (first > seq + 1) {
      drop("the heads log moved past the copy");
      return false;
    }
    for (int i = 0; i < n; i++) {
      int e = at + 4 + 4 * i;
      long number = first + i;
      if (number == seq && hasLast) {
        if (!Arrays.equals(reply, e, e + 4, last, 0, 4)) {
          drop("the heads log was replaced behind the copy");
          return false;
        }
      } else if (number > seq) {
        groups.set(reply[e + 1], reply[e + 2], reply[e] > 0);
        seq = number;
        hasLast = true;
        System.arraycopy(reply, e, last, 0, 4);
      }
    }
    if (kept >= 0 && seq == first + n - 1 && kept != groups.size()) {
      // Something changes heads without logging it (an instance of an earlier version): a copy
      // read now would soon be wrong again, so polls rank in Redis for a while.
      drop("the copy holds " + groups.size() + " groups where heads has " + kept);
      retryAt = clock.millis() + UNLOGGED_RETRY_MILLIS;
      return false;
    }
    return true;
  }

  /** One plus the groups ahead of band 0's group at {@code place}, or -1 without a copy. */
  synchronized long position(Since sent, long place) {
    if (sent.copy != copy || seq < 0) {
      return -1;
    }
    ranked++;
    return groups.before(place) + 1;
  }

  // ── For tests ──────────────────────────────────────────────────────────

  /** Starts reading a copy if there is none and waits for one, at most {@code millis}. */
  synchronized boolean awaitCopy(long millis) throws InterruptedException {
    long end = System.nanoTime() + millis * 1_000_000;
    while (seq < 0) {
      retryAt = 0;
      since(); // starts a read unless one is under way
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  /** Groups a page of heads holds at most; tests make it small. */
  synchronized void pageSize(int groups) {
    page = groups;
  }

  private synchronized int pageSize() {
    return page;
  }

  /** The copies read so far and the positions they gave. */
  synchronized long[] counts() {
    return new long[] {copy, ranked};
  }

  /** Stops reading copies. */
  void close() {
    closed = true;
  }

  private void drop(String why) {
    LOG.info("room {}: {}; reading heads again", roomId, why);
    seq = -1;
    copy++;
    retryAt = clock.millis() + RETRY_MILLIS; // a copy that keeps going stale costs Redis reads
  }

  /** Reads heads page by page into a new copy, then installs it at the change it started from. */
  private void readCopy() {
    boolean installed = false;
    try {
      List<Object> begin = scripts.eval(Op.HEADS, "begin");
      HeadsGroups read = new HeadsGroups();
      String cursor = "-inf";
      while (!cursor.isEmpty()) {
        if (closed) {
          return; // a part of heads is not a copy
        }
        List<Object> part = scripts.eval(Op.HEADS, "page", cursor, Integer.toString(pageSize()));
        cursor = text(part.get(0));
        for (int i = 1; i < part.size(); i++) {
          read.add(text(part.get(i)));
        }
      }
      synchronized (this) {
        groups.replace(read);
        epoch = text(begin.get(0));
        gen = text(begin.get(1));
        seq = Replies.num(begin, 2);
        // the change the copy starts from, so that the first reply checks it too
        hasLast = begin.size() >= 7;
        for (int i = 0; hasLast && i < 4; i++) {
          last[i] = Replies.num(begin, 3 + i);
        }
        copy++;
        failures = 0;
        installed = true;
      }
    } catch (RuntimeException e) {
      boolean first;
      synchronized (this) {
        first = failures++ == 0;
      }
      if (first) { // once a streak: while Redis is down every retry fails alike
        LOG.warn(
            "room {}: could not read heads for a copy ({}); polls rank in Redis", roomId, "" + e);
      }
    } finally {
      synchronized (this) {
        reading = false;
        if (!installed) {
          retryAt = clock.millis() + RETRY_MILLIS;
        }
        notifyAll();
      }
    }
  }

  private static String text(Object o) {
    return o instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : o + "";
  }
}
