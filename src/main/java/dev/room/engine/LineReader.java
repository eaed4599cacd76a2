package dev.room.engine;

import dev.room.TicketInfo;
import dev.room.spi.Tokens;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The line's readers for the management API: the first tickets in line, one ticket, and a chunked
 * copy of every ticket. Fields are copied under the line's lock; tokens are formatted and records
 * built after it is released, so polls wait only for the copy.
 */
final class LineReader {
  static final int SNAPSHOT_CHUNK = 256;

  private final Object lock;
  private final LineIndex index;
  private final TokenStore tokens;
  private final ServingWindow window;

  /** {@code lock} is the owning line's lock, taken here a chunk at a time. */
  LineReader(Object lock, LineIndex index, TokenStore tokens, ServingWindow window) {
    this.lock = lock;
    this.index = index;
    this.tokens = tokens;
    this.window = window;
  }

  List<TicketInfo> queue(int limit) {
    List<Row> rows = new ArrayList<>(Math.min(Math.max(limit, 0), 1024));
    if (limit <= 0) {
      return List.of();
    }
    synchronized (lock) {
      for (Ticket r = window.firstReady(); r != null && rows.size() < limit; r = r.right) {
        rows.add(new Row(r, 0));
      }
      long[] position = {0};
      Ticket[] previous = {null};
      index.forEach(
          limit - rows.size(),
          t -> {
            if (!t.sameGroup(previous[0])) {
              position[0]++; // the first of its group: one group further back
            }
            previous[0] = t;
            rows.add(new Row(t, position[0]));
          });
    }
    List<TicketInfo> out = new ArrayList<>(rows.size());
    for (Row r : rows) {
      out.add(r.info());
    }
    return out;
  }

  TicketInfo ticket(long hi, long lo) {
    synchronized (lock) {
      Ticket t = tokens.get(hi, lo);
      if (t == null) {
        return null;
      }
      return info(t, t.state() == Ticket.READY ? 0 : index.position(t));
    }
  }

  /** Copies every live ticket and its info, a chunk per lock hold so polls never stall long. */
  void snapshot(List<Ticket> tickets, List<TicketInfo> infos) {
    List<Row> rows = new ArrayList<>(SNAPSHOT_CHUNK);
    synchronized (lock) {
      for (Ticket r = window.firstReady(); r != null; r = r.right) {
        tickets.add(r);
        rows.add(new Row(r, 0));
      }
    }
    Ticket after = null;
    while (true) {
      rows.forEach(r -> infos.add(r.info()));
      rows.clear();
      synchronized (lock) {
        Ticket start = after == null ? index.first() : index.after(after);
        if (start == null) {
          return;
        }
        long[] position = {index.position(start)};
        Ticket[] last = {null};
        index.forEachFrom(
            start,
            SNAPSHOT_CHUNK,
            t -> {
              if (last[0] != null && !t.sameGroup(last[0])) {
                position[0]++;
              }
              tickets.add(t);
              rows.add(new Row(t, position[0]));
              last[0] = t;
            });
        after = Ticket.keyOf(last[0]);
      }
    }
  }

  private static TicketInfo info(Ticket t, long position) {
    return new TicketInfo(
        Tokens.format(t.hi(), t.lo()),
        position,
        t.clientKey == null ? "" : t.clientKey,
        Instant.ofEpochMilli(t.issuedAt()),
        t.polled() ? Instant.ofEpochMilli(t.lastPoll()) : null,
        t.seen(),
        t.hasPass(),
        t.rank);
  }

  /** A ticket's fields copied under the lock; the record is built after it is released. */
  private record Row(
      long hi,
      long lo,
      long position,
      long issuedAt,
      long lastPoll,
      boolean polled,
      boolean seen,
      boolean hasPass,
      int rank,
      String clientKey) {
    Row(Ticket t, long position) {
      this(
          t.hi(),
          t.lo(),
          position,
          t.issuedAt(),
          t.lastPoll(),
          t.polled(),
          t.seen(),
          t.hasPass(),
          t.rank,
          t.clientKey);
    }

    TicketInfo info() {
      return new TicketInfo(
          Tokens.format(hi, lo),
          position,
          clientKey == null ? "" : clientKey,
          Instant.ofEpochMilli(issuedAt),
          polled ? Instant.ofEpochMilli(lastPoll) : null,
          seen,
          hasPass,
          rank);
    }
  }
}
