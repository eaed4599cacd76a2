package dev.room.redis;

import dev.room.TicketInfo;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Move;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The management operations of a {@link RedisLine}: reading the line, removing tickets, the moves
 * (promote, quote, rank, the pre-sale draw), the reaper pass and the lapse of absent offers. Work
 * over many tickets goes in bounded steps (a scan chunk, an eviction step, a removal batch), so a
 * long line never holds Redis up for long.
 */
final class LineManagement {
  private static final Logger LOG = LoggerFactory.getLogger(RedisLine.class);
  private static final int EVICT_STEP = 1000;

  private final String roomId;
  private final LineScripts scripts;

  LineManagement(String roomId, LineScripts scripts) {
    this.roomId = roomId;
    this.scripts = scripts;
  }

  boolean remove(long hi, long lo, long now) {
    List<Object> r = scripts.update(Op.REMOVE, Long.toString(now), Tokens.format(hi, lo), "-1");
    return Replies.code(r) == 1;
  }

  /**
   * Scans the whole line for matches first, then removes them in batches; each removal names the
   * ticket's number, so a token that left and came back meanwhile is not removed.
   */
  int removeIf(Predicate<TicketInfo> match, long now) {
    List<String> chosen = new ArrayList<>();
    LineScan.forEach(
        scripts.link(),
        scripts.keys(),
        Long.MAX_VALUE,
        LineScan.CHUNK,
        row -> {
          if (match.test(row.info())) {
            chosen.add(row.token());
            chosen.add(Long.toString(row.number()));
          }
        });
    int removed = 0;
    for (int from = 0; from < chosen.size(); from += 2 * LineScan.CHUNK) {
      List<String> args = new ArrayList<>();
      args.add(Long.toString(now));
      args.addAll(chosen.subList(from, Math.min(chosen.size(), from + 2 * LineScan.CHUNK)));
      removed += (int) Replies.code(scripts.update(Op.REMOVE, args.toArray(new String[0])));
    }
    return removed;
  }

  /** A promotion ({@code really}) or a quote of one. */
  Move move(long hi, long lo, long target, boolean really) {
    return Replies.move(
        scripts.eval(Op.PROMOTE, Tokens.format(hi, lo), Long.toString(target), really ? "1" : "0"));
  }

  boolean rank(long hi, long lo, int rank) {
    List<Object> r = scripts.eval(Op.RANK, Tokens.format(hi, lo), Integer.toString(rank));
    return Replies.checked(Replies.code(r)) == 1;
  }

  /**
   * Runs the draw in one script. The group's size is read by the script itself, so {@code order}
   * may be asked again when the group changed between the two calls.
   */
  int drawPresale(IntFunction<int[]> order) {
    int size = (int) Replies.code(scripts.eval(Op.DRAW));
    while (size > 0) {
      int[] drawn = order.apply(size);
      boolean[] seen = new boolean[size];
      if (drawn == null || drawn.length != size) {
        throw new IllegalArgumentException("the draw must order exactly " + size + " arrivals");
      }
      String[] args = new String[size];
      for (int i = 0; i < size; i++) {
        int a = drawn[i];
        if (a < 0 || a >= size || seen[a]) {
          throw new IllegalArgumentException("the draw is not a permutation");
        }
        seen[a] = true;
        args[i] = Integer.toString(a);
      }
      int group = (int) Replies.code(scripts.eval(Op.DRAW, args));
      if (group == size) {
        return size;
      }
      size = group;
    }
    return 0;
  }

  List<TicketInfo> queue(int limit) {
    List<TicketInfo> out = new ArrayList<>(Math.max(0, Math.min(limit, 1024)));
    if (limit > 0) {
      LineScan.forEach(
          scripts.link(), scripts.keys(), limit, LineScan.CHUNK, row -> out.add(row.info()));
    }
    return out;
  }

  TicketInfo ticket(long hi, long lo) {
    List<Object> r = scripts.eval(Op.TICKET, Tokens.format(hi, lo));
    return r.isEmpty() ? null : LineScan.Row.of(r, 0).info();
  }

  /**
   * One reaper pass in bounded steps; lapsed leases are reaped too. Nothing while Redis is down.
   */
  int[] evict(long now, Policy p) {
    int[] total = new int[2];
    try {
      List<Object> r;
      do {
        r =
            scripts.update(
                Op.EVICT,
                Long.toString(now),
                Long.toString(p.ttl()),
                Long.toString(p.firstPollGrace()),
                Long.toString(p.readyTimeout()),
                Integer.toString(EVICT_STEP));
        total[0] += (int) Replies.code(r);
        total[1] += (int) Replies.num(r, 1);
      } while (Replies.num(r, 2) == 1);
    } catch (LineUnavailableException e) {
      LOG.debug("room {}: eviction skipped, Redis is unreachable", roomId);
    }
    return total;
  }

  // origin (issue 16): absence, the rule in lib/retire.lua (lapseAbsent) and lib/window.lua
  int lapseAbsent(long now, Policy p) {
    try {
      List<Object> r =
          scripts.update(Op.ABSENT, Long.toString(now), Long.toString(p.presenceWindow()));
      return (int) Replies.code(r);
    } catch (LineUnavailableException e) {
      return 0; // nothing to lapse while Redis is unreachable
    }
  }
}
