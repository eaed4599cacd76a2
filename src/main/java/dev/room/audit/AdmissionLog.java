package dev.room.audit;

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
  static final int GAP = 100;
  static final int NOTE = 101;
  static final int DRAW = 102;
  static final int OBSERVED = 1 << 20;

  private final OutputStream out;
  private final FileChannel channel;
  private final EntryRing ring;

  private AdmissionLog(FileChannel channel, long seq, String prev) {
    this.channel = channel;
    this.out = new java.io.BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
    this.ring = new EntryRing(out, seq, prev);
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
    ring.open(clock, new String[] {"genesis", room, exact ? "exact" : "observed"});
    return new Recorder();
  }

  /** Entries dropped because the writer fell behind (each run of them is a {@code gap}). */
  public long lost() {
    return ring.lost();
  }

  /**
   * Waits until every entry recorded so far is written to the file.
   *
   * @throws IOException when writing failed
   */
  public void flush() throws IOException {
    ring.flush();
  }

  /** Writes a {@code close} entry, flushes, forces the file to disk and stops the writer. */
  @Override
  public void close() throws IOException {
    if (!ring.close()) {
      return;
    }
    try {
      out.flush();
      channel.force(true);
    } finally {
      channel.close();
    }
  }

  /** The room's and the line's way in. */
  private final class Recorder implements LineJournal {
    @Override
    public void record(int kind, long number, int band, long place, long order, long flags) {
      ring.put(kind, number, band, place, order, flags, null);
    }

    @Override
    public void drawn(long[] group) {
      ring.put(DRAW, 0, 0, 0, 0, 0, group);
    }

    @Override
    public void note(String kind, String value) {
      ring.put(NOTE, 0, 0, 0, 0, 0, new String[] {kind, value});
    }

    @Override
    public void observed(int kind, long hi, long lo, long position) {
      ring.put(kind | OBSERVED, hi, 0, lo, position, 0, null);
    }
  }

  /** The allowance as the log writes it: -1 for {@link Line#UNLIMITED}. */
  static long allowance(long a) {
    return a == Line.UNLIMITED ? -1 : a;
  }
}
