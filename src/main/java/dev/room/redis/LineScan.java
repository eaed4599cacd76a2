package dev.room.redis;

import dev.room.TicketInfo;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineEntry;
import dev.room.spi.Tokens;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads tickets in line order (ready ones first) through the scan script, a chunk per call, so a
 * long line never holds Redis up. Each chunk is consistent; the whole is not, as with the in-memory
 * line's snapshots: read after serving has stopped for an exact one.
 */
final class LineScan {
  static final int FIELDS = 17;

  /** Tickets per scan call: the reads, the export and the removal batches of a Redis line. */
  static final int CHUNK = 512;

  private LineScan() {}

  /**
   * One ticket as the scan and ticket scripts return it: band, place and order as the export writes
   * them, and {@code ready} for a client told to come in or restored as ready.
   */
  record Row(
      String token,
      long position,
      int band,
      long place,
      long order,
      int rank,
      long issuedAt,
      long lastActivity,
      long lastPoll,
      boolean polled,
      boolean seen,
      boolean hasPass,
      String clientKey,
      long number,
      boolean ready,
      boolean promoted,
      String identity) {

    static Row of(List<Object> r, int at) {
      return new Row(
          (String) r.get(at),
          Replies.num(r, at + 1),
          (int) Replies.num(r, at + 2),
          Replies.num(r, at + 3),
          Replies.num(r, at + 4),
          (int) Replies.num(r, at + 5),
          Replies.num(r, at + 6),
          Replies.num(r, at + 7),
          Replies.num(r, at + 8),
          Replies.num(r, at + 9) != 0,
          Replies.num(r, at + 10) != 0,
          Replies.num(r, at + 11) != 0,
          (String) r.get(at + 12),
          Replies.num(r, at + 13),
          Replies.num(r, at + 14) != 0,
          Replies.num(r, at + 15) != 0,
          identity((String) r.get(at + 16)));
    }

    private static String identity(String s) {
      return s.isEmpty() ? null : s;
    }

    TicketInfo info() {
      return new TicketInfo(
          token,
          position,
          clientKey,
          Instant.ofEpochMilli(issuedAt),
          polled ? Instant.ofEpochMilli(lastPoll) : null,
          seen,
          hasPass,
          rank);
    }

    LineEntry entry() {
      return new LineEntry(
          Tokens.hi(token),
          Tokens.lo(token),
          band,
          place,
          order,
          rank,
          issuedAt,
          lastActivity,
          polled ? lastPoll : Long.MIN_VALUE,
          seen,
          hasPass,
          ready,
          clientKey,
          promoted && !ready,
          number,
          identity);
    }
  }

  /** Feeds up to {@code limit} tickets to {@code sink}, {@code chunk} per script call. */
  static void forEach(RedisLink link, RoomKeys keys, long limit, int chunk, Consumer<Row> sink) {
    String mode = "r";
    String cursor = "-1";
    long seen = 0;
    while (seen < limit) {
      int n = (int) Math.min(chunk, limit - seen);
      List<Object> r = link.eval(Op.SCAN, keys.all(), mode, cursor, Integer.toString(n));
      for (int at = 2; at < r.size(); at += FIELDS) {
        sink.accept(Row.of(r, at));
        seen++;
      }
      mode = (String) r.get(0);
      cursor = (String) r.get(1);
      if (mode.equals("end")) {
        return;
      }
    }
  }
}
