package dev.room.audit;

import dev.room.engine.Threads;
import dev.room.spi.Line;
import dev.room.spi.LineJournal;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Objects;

/**
 * An append-only, hash-chained record of a room's admissions and of every event that legitimately
 * changes who is next, which the operator can publish after a sale and anyone can check with {@link
 * AdmissionLogVerifier}.
 *
 * <p>The file is JSON Lines, ASCII, one entry a line, members in a fixed order: {@code seq} (0, 1,
 * 2, …), {@code t} (epoch millis on the room's clock), {@code kind}, the kind's fields, then {@code
 * prev} (the previous entry's {@code hash}; 64 zeros for the first) and {@code hash}: the SHA-256,
 * lower-case hex, of the line's bytes with its {@code ,"hash":"…"} member taken out. So an edited
 * entry fails its own hash, and a removed, inserted or reordered one breaks {@code seq} and {@code
 * prev}; publishing the last hash (the head) during the sale pins everything before it.
 *
 * <p>Kinds: {@code genesis} (format, room name, {@code line}: {@code exact} or {@code observed},
 * policy), {@code arrive}, {@code move} (with {@code why}: {@code promote}, {@code rank}, {@code
 * draw}, {@code tie}), {@code lapse}, {@code present}, {@code absent} (the client silent for the
 * presence window since {@code heard}: passed over, or its untold offer lapses), {@code offer} (the
 * admission decision: the ticket is handed a slot), {@code admit} (it took the slot), {@code
 * remove}, {@code expire}, {@code enter} (a metered fast-path entry, nobody waiting), {@code
 * allowance} ({@code -1} = unlimited, {@code 0} = held), {@code capacity}, {@code mode}, {@code
 * presale} (the seed's SHA-256), {@code reveal} (the seed), {@code draw} (the group, in line
 * order), {@code gap} (entries lost because the writer fell behind) and {@code close}. A ticket is
 * named by its arrival number {@code n} and keyed by {@code band}, {@code place}, {@code order} and
 * {@code tied}; no token, client key or anything else about a person is written.
 *
 * <p>Cost. The line calls the log inside its lock: a call copies a few longs into a preallocated
 * ring under a monitor and returns (no allocation, no I/O, no hashing). A writer thread formats,
 * hashes and writes in batches, flushing when the ring is empty. The ring never blocks a request:
 * when it is full the entry is dropped and a {@code gap} entry records how many were, so the log
 * says so rather than lying by omission (a log with a gap does not verify).
 *
 * <p>A line that cannot journal inside its atomic step (the Redis line) gets an {@code observed}
 * log: this instance's arrivals and admissions as it saw them, each ticket named by a digest of its
 * token under a random key the log never writes, plus the room's own notes. See the README's "A
 * verifiable admission log" for what such a log proves on a fleet.
 */
public final class AdmissionLog implements AutoCloseable {
  /** The format named in every genesis entry. */
  public static final String FORMAT = "room-admission-log/1";

  static final int RING = 1 << 16;
  private static final int W = 7; // kind, number, band, place, order, flags, time
  static final int GAP = 100;
  static final int NOTE = 101;
  static final int DRAW = 102;
  static final int OBSERVED = 1 << 20;
  private static final long LINGER_MILLIS = 2;

  private final OutputStream out;
  private final FileChannel channel;
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

  private AdmissionLog(FileChannel channel, long seq, String prev) {
    this.channel = channel;
    this.out = new java.io.BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
    this.writer = new EntryWriter(seq, prev);
    new SecureRandom().nextBytes(salt);
  }

  /**
   * A log appended to {@code file}. A file that already holds a log is continued: the next genesis
   * chains to its last entry (a restart), so one file can span the instance's life.
   *
   * @throws IOException when the file cannot be opened, or its last line is not a log entry
   */
  public static AdmissionLog toFile(Path file) throws IOException {
    Objects.requireNonNull(file, "file");
    long seq = 0;
    String prev = EntryWriter.ZERO;
    if (Files.exists(file) && Files.size(file) > 0) {
      String last = lastLine(file);
      LogEntry e = LogEntry.parse(last, 0);
      seq = e.number("seq") + 1;
      prev = e.string("hash");
    }
    FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    return new AdmissionLog(ch, seq, prev);
  }

  private static String lastLine(Path file) throws IOException {
    String all = Files.readString(file, StandardCharsets.US_ASCII);
    int end = all.endsWith("\n") ? all.length() - 1 : all.length();
    return all.substring(all.lastIndexOf('\n', end - 1) + 1, end);
  }

  /**
   * Binds this log to a room and writes its genesis entry; the room calls it from {@code
   * setAdmissionLog}. Returns the journal the room hands its line (and records its own notes in).
   *
   * @param exact whether the line journals inside its atomic step (else the log is observed)
   * @throws IllegalStateException when the log is already bound or closed
   */
  public LineJournal open(String room, InstantSource clock, boolean exact) {
    Objects.requireNonNull(room, "room");
    synchronized (this) {
      if (this.clock != null || closed) {
        throw new IllegalStateException("an admission log serves one room, once");
      }
      this.clock = Objects.requireNonNull(clock, "clock");
      put(NOTE, 0, 0, 0, 0, 0, new String[] {"genesis", room, exact ? "exact" : "observed"});
      thread = Threads.daemon("room-admission-log", this::run);
      thread.start();
    }
    return new Recorder();
  }

  /** Entries dropped because the writer fell behind (each run of them is a {@code gap}). */
  public synchronized long lost() {
    return lost + pendingLost;
  }

  /**
   * Waits until every entry recorded so far is written to the file.
   *
   * @throws IOException when writing failed
   */
  public void flush() throws IOException {
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

  /** Writes a {@code close} entry, flushes, forces the file to disk and stops the writer. */
  @Override
  public void close() throws IOException {
    synchronized (this) {
      if (closed) {
        return;
      }
      if (clock != null) {
        put(NOTE, 0, 0, 0, 0, 0, new String[] {"close"});
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
    try {
      out.flush();
      channel.force(true);
    } finally {
      channel.close();
    }
  }

  // ── The producer side: called under the line's lock ─────────────────────

  private synchronized void put(
      int kind, long number, long band, long place, long order, long flags, Object x) {
    if (closed) {
      return;
    }
    InstantSource c = clock;
    long now = c == null ? 0 : c.millis();
    if (pendingLost > 0 && head - tail < RING) {
      slot(GAP, pendingLost, 0, 0, 0, 0, now, null);
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

  /** The room's and the line's way in. */
  private final class Recorder implements LineJournal {
    @Override
    public void record(int kind, long number, int band, long place, long order, long flags) {
      put(kind, number, band, place, order, flags, null);
    }

    @Override
    public void drawn(long[] group) {
      put(DRAW, 0, 0, 0, 0, 0, group);
    }

    @Override
    public void note(String kind, String value) {
      put(NOTE, 0, 0, 0, 0, 0, new String[] {kind, value});
    }

    @Override
    public void observed(int kind, long hi, long lo, long position) {
      put(kind | OBSERVED, hi, 0, lo, position, 0, null);
    }
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

  /** The allowance as the log writes it: -1 for {@link Line#UNLIMITED}. */
  static long allowance(long a) {
    return a == Line.UNLIMITED ? -1 : a;
  }
}
