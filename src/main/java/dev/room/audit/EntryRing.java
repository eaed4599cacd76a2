package dev.room.audit;

import dev.room.engine.Threads;
import java.io.IOException;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Objects;

/**
 * The ring between an {@link AdmissionLog}'s producers and its writer thread: a call copies a few
 * longs into a preallocated ring under this object's monitor and returns (no allocation, no I/O, no
 * hashing); the writer formats, hashes and writes in batches. When the ring is full an entry is
 * dropped and counted, and a {@code gap} entry records the run of them once there is room again.
 *
 * <p>Implementation notes. The indices, counts and flags are guarded by this object's monitor; the
 * slots in [{@code tail}, {@code head}) the writer reads outside it, since producers do not touch
 * them until {@code tail} moves past them. Producers notify only a writer asleep with nothing to
 * do: while it lingers they add to the ring without a notify.
 */
final class EntryRing {
  private static final int RING = AdmissionLog.RING;
  private static final int W = 7; // kind, number, band, place, order, flags, time
  private static final long LINGER_MILLIS = 2;

  private final OutputStream out;
  private final long[] ring = new long[RING * W];
  private final Object[] extra = new Object[RING];
  private final EntryWriter writer;
  private final byte[] salt = new byte[16];
  private long head;
  private long tail;
  private long pendingLost;
  private long lost;
  private boolean closed;
  private boolean sleeping; // the writer waits for work with nothing left to flush
  private boolean flushWanted;
  private IOException failure;
  private volatile InstantSource clock;
  private Thread thread;

  /**
   * A ring whose writer appends to {@code out}, continuing the chain at {@code seq} after {@code
   * prev}.
   */
  EntryRing(OutputStream out, long seq, String prev) {
    this.out = out;
    this.writer = new EntryWriter(seq, prev);
    new SecureRandom().nextBytes(salt);
  }

  /**
   * Binds the ring to the room's {@code clock}, records {@code genesis} and starts the writer.
   *
   * @throws IllegalStateException when the ring is already bound or closed
   */
  synchronized void open(InstantSource clock, String[] genesis) {
    if (this.clock != null || closed) {
      throw new IllegalStateException("an admission log serves one room, once");
    }
    this.clock = Objects.requireNonNull(clock, "clock");
    put(AdmissionLog.NOTE, 0, 0, 0, 0, 0, genesis);
    thread = Threads.daemon("room-admission-log", this::run);
    thread.start();
  }

  /** Entries dropped because the writer fell behind. */
  synchronized long lost() {
    return lost + pendingLost;
  }

  /**
   * Waits until every entry recorded so far is written to the stream.
   *
   * @throws IOException when writing failed
   */
  void flush() throws IOException {
    synchronized (this) {
      long want = head;
      flushWanted = true;
      notifyAll();
      while ((tail < want || flushWanted)
          && failure == null
          && thread != null
          && thread.isAlive()) {
        try {
          wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while flushing the admission log", e);
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  /**
   * Records a {@code close} entry (when bound), flushes and stops the writer. Returns false when
   * the ring was closed already.
   */
  boolean close() throws IOException {
    synchronized (this) {
      if (closed) {
        return false;
      }
      if (clock != null) {
        put(AdmissionLog.NOTE, 0, 0, 0, 0, 0, new String[] {"close"});
      }
    }
    flush();
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    if (thread != null) {
      Threads.join(thread, Threads.CLOSE_WAIT_MILLIS);
    }
    return true;
  }

  // ── The producer side: called under the line's lock ─────────────────────

  synchronized void put(
      int kind, long number, long band, long place, long order, long flags, Object x) {
    if (closed) {
      return;
    }
    InstantSource c = clock;
    long now = c == null ? 0 : c.millis();
    if (pendingLost > 0 && head - tail < RING) {
      slot(AdmissionLog.GAP, pendingLost, 0, 0, 0, 0, now, null);
      lost += pendingLost;
      pendingLost = 0;
    }
    if (head - tail >= RING) {
      pendingLost++;
      return;
    }
    slot(kind, number, band, place, order, flags, now, x);
    if (sleeping) {
      sleeping = false;
      notifyAll();
    }
  }

  private void slot(
      int kind, long number, long band, long place, long order, long flags, long now, Object x) {
    int i = (int) (head & (RING - 1));
    int b = i * W;
    ring[b] = kind;
    ring[b + 1] = number;
    ring[b + 2] = band;
    ring[b + 3] = place;
    ring[b + 4] = order;
    ring[b + 5] = flags;
    ring[b + 6] = now;
    extra[i] = x;
    head++;
  }

  // ── The writer thread ───────────────────────────────────────────────────

  /**
   * The writer: takes every entry in the ring, formats, chains and buffers it, and flushes the file
   * once the ring stays empty for {@link #LINGER_MILLIS} (or when asked), so a busy sale costs one
   * write per buffer, not one per entry. Producers wake it only from its idle sleep: while it
   * lingers they add to the ring without a notify.
   */
  private void run() {
    long[] batch = new long[W];
    boolean dirty = false;
    while (true) {
      long from;
      long to;
      boolean flush;
      synchronized (this) {
        try {
          if (tail == head && dirty && !flushWanted && !closed) {
            wait(LINGER_MILLIS);
          }
          while (tail == head && !dirty && !closed) {
            if (flushWanted) {
              flushWanted = false;
              notifyAll();
            }
            sleeping = true;
            wait();
          }
        } catch (InterruptedException e) {
          return;
        }
        sleeping = false;
        if (tail == head && closed && !dirty) {
          flushWanted = false;
          notifyAll();
          return;
        }
        from = tail;
        to = head;
        flush = from == to;
      }
      // Slots in [from, to) are not touched by producers until tail moves past them.
      try {
        for (long s = from; s < to; s++) {
          int i = (int) (s & (RING - 1));
          System.arraycopy(ring, i * W, batch, 0, W);
          Object x = extra[i];
          extra[i] = null;
          writer.write(batch, x, salt, out);
        }
        dirty |= to > from;
        if (flush) {
          out.flush();
          dirty = false;
        }
      } catch (IOException | RuntimeException e) {
        synchronized (this) {
          failure = e instanceof IOException io ? io : new IOException(e);
          tail = to;
          notifyAll();
        }
        return;
      }
      synchronized (this) {
        tail = to;
        if (flush && flushWanted && tail == head) {
          flushWanted = false;
        }
        notifyAll();
      }
    }
  }
}
