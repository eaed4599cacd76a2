package dev.room.audit;

import dev.room.spi.Line;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A model of the line replayed from an {@code exact} log, one entry at a time: every ticket arrives
 * at the back in arrival order (or, with a pass, tied into the front group); an {@code offer} (a
 * slot handed over) goes to the first present waiter in key order (band, place, order), never while
 * the allowance is 0 (a pause); a metered {@code enter} passes nobody. Promotions, ranks, removals,
 * expiries, lapsed offers and presence are the recorded events that legitimately change who is
 * next; they are applied. Each method takes one entry and returns null, or why it breaks the
 * policy; an entry about a ticket not in line throws {@link IllegalArgumentException}.
 */
final class ReplayedLine {
  private final Map<Long, Waiter> tickets = new HashMap<>();
  private final TreeSet<Waiter> waiting =
      new TreeSet<>(
          Comparator.<Waiter>comparingInt(w -> -w.band)
              .thenComparingLong(w -> w.place)
              .thenComparingLong(w -> w.order)
              .thenComparingLong(w -> w.n));
  private long allowance = Line.UNLIMITED;
  private long lastArrival;
  private Waiter lapsePending; // an absent ready ticket: its lapse, away, is the next entry

  /** A ticket as the log has it. */
  static final class Waiter {
    final long n;
    int band;
    long place;
    long order;
    boolean tied;
    boolean away;
    boolean ready;
    long heard; // the last time the log shows its client heard from (a present entry)

    Waiter(long n) {
      this.n = n;
    }
  }

  /** A genesis: the line starts empty and unlimited. */
  void reset() {
    tickets.clear();
    waiting.clear();
    allowance = Line.UNLIMITED;
    lastArrival = 0;
  }

  /** Before any entry of {@code kind}: an absent ready ticket's lapse must come at once. */
  String lapseDue(String kind, LogEntry e) {
    if (lapsePending == null) {
      return null;
    }
    Waiter w = lapsePending;
    lapsePending = null;
    if (!kind.equals("lapse") || e.number("n") != w.n || !e.bool("away")) {
      return "ticket " + w.n + "'s untold offer was absent but did not lapse (away) at once";
    }
    return null;
  }

  String arrive(LogEntry e) {
    long n = e.number("n");
    if (tickets.containsKey(n) || n <= lastArrival) {
      return "ticket " + n + " arrives out of arrival order";
    }
    lastArrival = n;
    Waiter w = new Waiter(n);
    key(w, e);
    if (w.tied) {
      Waiter first = waiting.isEmpty() ? null : waiting.first();
      if (first == null || first.band != w.band || first.place != w.place) {
        return "ticket " + n + " is tied into a place that is not the front of the line";
      }
    } else if (w.band != 0 || w.place != n || w.order != n) {
      return "ticket " + n + " does not join at the back of the line";
    }
    tickets.put(n, w);
    waiting.add(w);
    return null;
  }

  /** A {@code held} entry: a ticket the line held at the checkpoint after the genesis. */
  String hold(LogEntry e) {
    long n = e.number("n");
    if (tickets.containsKey(n)) {
      return "ticket " + n + " is held twice";
    }
    Waiter w = new Waiter(n);
    key(w, e);
    w.ready = e.bool("ready");
    tickets.put(n, w);
    if (!w.ready) {
      waiting.add(w);
    }
    lastArrival = Math.max(lastArrival, n);
    return null;
  }

  /** A {@code move}; one {@code why} "draw" must be a move {@code draw} has due. */
  String move(LogEntry e, ReplayedDraw draw) {
    Waiter w = waiter(e, false);
    String why = e.string("why");
    long band = e.number("band");
    long place = e.number("place");
    if (why.equals("tie") && (band != w.band || place != w.place)) {
      return "a tie re-keying moved ticket " + w.n + " to another place";
    }
    if (why.equals("draw")) {
      Long want = draw.placed(w.n);
      if (want == null || band != 0 || place != want) {
        return "ticket " + w.n + " is not where the pre-sale draw puts it (place " + want + ")";
      }
    }
    waiting.remove(w);
    key(w, e);
    waiting.add(w);
    return null;
  }

  String offer(LogEntry e) {
    Waiter w = waiter(e, false);
    String held = allow("ticket " + w.n + " was offered a slot");
    if (held != null) {
      return held;
    }
    // After an import nobody has polled yet: the first in line are offered, away or not.
    boolean away = e.has("away") && e.bool("away");
    Waiter first = away ? waiting.first() : firstPresent();
    if (first == null) {
      return "ticket " + w.n + " was offered a slot while away (not heard from)";
    }
    if (first != w) {
      return "ticket "
          + w.n
          + " was offered a slot while ticket "
          + first.n
          + " waited ahead of it, present: not first in, first out";
    }
    waiting.remove(w);
    w.ready = true;
    return null;
  }

  void admit(LogEntry e) {
    tickets.remove(waiter(e, true).n);
  }

  String lapse(LogEntry e) {
    Waiter w = waiter(e, true);
    w.ready = false;
    key(w, e);
    waiting.add(w);
    return null;
  }

  String present(LogEntry e) {
    Waiter w = known(e);
    w.away = false;
    if (e.has("heard")) {
      w.heard = Math.max(w.heard, e.number("heard"));
    }
    return null;
  }

  /**
   * The presence rule (issue 16): a ticket is passed over, or its untold offer lapses, only when
   * its client was silent for a whole positive window as of this entry's time, and not since a
   * moment the log itself shows it heard from (coming back present). A waiting ticket is away from
   * here on; a ready one's lapse must follow at once.
   */
  String absent(LogEntry e) {
    Waiter w = known(e);
    long heard = e.number("heard");
    long window = e.number("window");
    long t = e.number("t");
    if (window <= 0) {
      return "ticket " + w.n + " was passed over as absent without a presence window";
    }
    if (t - heard < window) {
      return "ticket "
          + w.n
          + " was passed over as absent after "
          + (t - heard)
          + " ms of silence, less than its window of "
          + window
          + " ms";
    }
    if (heard < w.heard) {
      return "ticket "
          + w.n
          + " was passed over as silent since "
          + heard
          + ", but the log shows it heard from at "
          + w.heard;
    }
    if (w.ready) {
      lapsePending = w;
    } else {
      w.away = true;
    }
    return null;
  }

  /** A {@code remove} or {@code expire}. */
  String remove(LogEntry e) {
    Waiter w = known(e);
    tickets.remove(w.n);
    if (!w.ready) {
      waiting.remove(w);
    }
    return null;
  }

  /** A fast-path {@code enter}. */
  String enter() {
    String held = allow("a fast-path entry");
    if (held != null) {
      return held;
    }
    return waiting.isEmpty() ? null : "a fast-path entry passed " + waiting.size() + " waiting";
  }

  String allowance(LogEntry e) {
    long v = e.number("value");
    allowance = v < 0 ? Line.UNLIMITED : v;
    return null;
  }

  /** The waiters a pre-sale draw places, in line order: those not moved to a band or tied. */
  List<Waiter> unmoved() {
    List<Waiter> mine = new ArrayList<>();
    for (Waiter w : waiting) {
      if (w.band == 0 && !w.tied) {
        mine.add(w);
      }
    }
    return mine;
  }

  private String allow(String what) {
    if (allowance == 0) {
      return what + " while the line was held (allowance 0)";
    }
    if (allowance != Line.UNLIMITED) {
      allowance--;
    }
    return null;
  }

  private Waiter firstPresent() {
    for (Waiter w : waiting) {
      if (!w.away) {
        return w;
      }
    }
    return null;
  }

  private Waiter known(LogEntry e) {
    Waiter w = tickets.get(e.number("n"));
    if (w == null) {
      throw new IllegalArgumentException("ticket " + e.number("n") + " is not in line");
    }
    return w;
  }

  private Waiter waiter(LogEntry e, boolean ready) {
    Waiter w = known(e);
    if (w.ready != ready) {
      throw new IllegalArgumentException(
          "ticket " + w.n + (ready ? " was not offered a slot" : " was already offered a slot"));
    }
    return w;
  }

  private static void key(Waiter w, LogEntry e) {
    w.band = (int) e.number("band");
    w.place = e.number("place");
    w.order = e.number("order");
    w.tied = e.bool("tied");
    w.away = e.has("away") && e.bool("away");
  }
}
