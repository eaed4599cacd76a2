package dev.room.audit;

import dev.room.engine.PresaleDraw;
import dev.room.spi.Line;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Checks an {@link AdmissionLog}: its chain, and that its admissions followed the recorded policy.
 *
 * <p>Usage: {@code java -jar room.jar verify log.jsonl [--head HASH] [--open]}, or {@code java -cp
 * room.jar dev.room.audit.AdmissionLogVerifier log.jsonl …}. Exit status 0 when the log verifies, 1
 * when it does not (the first bad entry is printed with its line number and why), 2 when it cannot
 * be read. {@code --head} also requires an entry with that hash (one published during the sale);
 * {@code --open} accepts a log without its final {@code close} entry (still being written), which
 * otherwise fails, since a log cut short would verify as far as it goes.
 *
 * <p>The chain: every line parses, its {@code hash} is the SHA-256 of its bytes without the hash
 * member, its {@code seq} follows the one before, and its {@code prev} is the hash before it (64
 * zeros for the first). The policy, replayed on a model of the line from {@code exact} logs: every
 * ticket arrives at the back in arrival order (or, with a pass, tied into the front group); an
 * {@code offer} (a slot handed over) goes to the first present waiter in key order (band, place,
 * order), never while the allowance is 0 (a pause); a metered {@code enter} passes nobody; a
 * pre-sale {@code reveal} matches the SHA-256 committed before it, the {@code draw}'s group is
 * every unmoved waiter in line order, and its moves are exactly the Fisher–Yates order {@link
 * PresaleDraw} recomputes from the seed. Promotions, ranks, removals, expiries, lapsed offers and
 * presence are the recorded events that legitimately change who is next; they are applied, and
 * anyone reading the log sees each. An {@code observed} log (a line that cannot journal, such as
 * Redis) is checked for its chain and its pre-sale commitment only.
 */
public final class AdmissionLogVerifier {
  private AdmissionLogVerifier() {}

  /** Verifies the log named in {@code args} and exits with 0, 1 or 2 (see the class doc). */
  public static void main(String... args) {
    int status = run(System.out, args);
    if (status != 0) {
      System.exit(status);
    }
  }

  /** {@link #main} without the exit: returns the status, writes the verdict to {@code out}. */
  static int run(PrintStream out, String... args) {
    Path file = null;
    String head = null;
    boolean open = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("verify") && i == 0) {
        continue;
      } else if (a.equals("--head") && i + 1 < args.length) {
        head = args[++i];
      } else if (a.equals("--open")) {
        open = true;
      } else if (file == null && !a.startsWith("--")) {
        file = Path.of(a);
      } else {
        file = null;
        break;
      }
    }
    if (file == null) {
      out.println("usage: verify LOG.jsonl [--head HASH] [--open]");
      return 2;
    }
    List<String> lines;
    try (Stream<String> s = Files.lines(file, StandardCharsets.US_ASCII)) {
      lines = s.toList();
    } catch (IOException | UncheckedIOException e) {
      out.println("cannot read " + file + ": " + e.getMessage());
      return 2;
    }
    Replay r = new Replay();
    String failure = r.check(lines, head, open);
    if (failure != null) {
      out.println("NOT VERIFIED: " + failure);
      return 1;
    }
    out.println(
        "verified: "
            + lines.size()
            + " entries, "
            + r.offers
            + " offers, "
            + r.admits
            + " admissions, head "
            + r.prev);
    return 0;
  }

  /** The replay: the chain and a model of the line, one entry at a time. */
  static final class Replay {
    private final MessageDigest sha = EntryWriter.sha256();
    private final Map<Long, Waiter> tickets = new HashMap<>();
    private final TreeSet<Waiter> waiting =
        new TreeSet<>(
            Comparator.<Waiter>comparingInt(w -> -w.band)
                .thenComparingLong(w -> w.place)
                .thenComparingLong(w -> w.order)
                .thenComparingLong(w -> w.n));
    private final Map<Long, Long> drawPending = new HashMap<>();
    String prev = EntryWriter.ZERO;
    long offers;
    long admits;
    private long seq;
    private boolean exact;
    private boolean closed;
    private boolean checkpoint;
    private long allowance = Line.UNLIMITED;
    private long lastArrival;
    private Waiter lapsePending; // an absent ready ticket: its lapse, away, is the next entry
    private String committed;
    private byte[] revealed;

    /** Returns null when {@code lines} verify, else the first failure. */
    String check(List<String> lines, String head, boolean open) {
      boolean headSeen = head == null;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        String why;
        try {
          why = entry(line, i);
        } catch (IllegalArgumentException e) {
          why = e.getMessage();
        }
        if (why != null) {
          return "line " + (i + 1) + ": " + why + "\n  " + line;
        }
        headSeen |= prev.equals(head);
      }
      if (lines.isEmpty()) {
        return "the log is empty";
      }
      if (!drawPending.isEmpty()) {
        return "end of log: the pre-sale draw did not place " + drawPending.keySet();
      }
      if (!closed && !open) {
        return "end of log: no close entry (cut short? pass --open for a log still being written)";
      }
      return headSeen ? null : "no entry has the published head " + head;
    }

    private String entry(String line, int index) {
      LogEntry e = LogEntry.parse(line, index + 1);
      String why = chain(line, e);
      if (why != null) {
        return why;
      }
      String kind = e.string("kind");
      if (lapsePending != null) {
        Waiter w = lapsePending;
        lapsePending = null;
        if (!kind.equals("lapse") || e.number("n") != w.n || !e.bool("away")) {
          return "ticket " + w.n + "'s untold offer was absent but did not lapse (away) at once";
        }
      }
      if (index == 0 && !kind.equals("genesis")) {
        return "the first entry must be a genesis";
      }
      if (closed && !kind.equals("genesis")) {
        return "an entry after close";
      }
      if (!drawPending.isEmpty() && !(kind.equals("move") && e.string("why").equals("draw"))) {
        return "the pre-sale draw did not place " + drawPending.keySet() + " before this entry";
      }
      if (kind.equals("held") && !checkpoint) {
        return "a held ticket after the checkpoint that follows the genesis";
      }
      checkpoint &=
          switch (kind) {
            case "held", "genesis", "capacity", "allowance", "mode", "presale" -> true;
            default -> false;
          };
      return kind.equals("genesis") || exact ? policy(kind, e) : observed(kind, e);
    }

    private String chain(String line, LogEntry e) {
      int cut = line.lastIndexOf(",\"hash\":\"");
      if (cut < 0 || !line.endsWith("\"}")) {
        return "no hash member at the end";
      }
      byte[] d = sha.digest((line.substring(0, cut) + "}").getBytes(StandardCharsets.US_ASCII));
      String hash = PresaleDraw.hex(d);
      if (!hash.equals(e.string("hash"))) {
        return "the hash does not match the entry's content: the entry was changed";
      }
      long s = e.number("seq");
      if (s != seq) {
        return "seq "
            + s
            + " where "
            + seq
            + " was expected: an entry is missing, added or out of order";
      }
      if (!e.string("prev").equals(prev)) {
        return "prev is not the hash of the entry before: an entry was changed, removed or moved";
      }
      seq++;
      prev = hash;
      return null;
    }

    private String policy(String kind, LogEntry e) {
      switch (kind) {
        case "genesis" -> {
          if (!AdmissionLog.FORMAT.equals(e.string("format"))) {
            return "unknown format " + e.string("format");
          }
          exact = e.string("line").equals("exact");
          closed = false;
          checkpoint = true;
          tickets.clear();
          waiting.clear();
          allowance = Line.UNLIMITED;
          lastArrival = 0;
          return null;
        }
        case "arrive" -> {
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
        case "held" -> {
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
        case "move" -> {
          Waiter w = waiter(e, false);
          String why = e.string("why");
          long band = e.number("band");
          long place = e.number("place");
          if (why.equals("tie") && (band != w.band || place != w.place)) {
            return "a tie re-keying moved ticket " + w.n + " to another place";
          }
          if (why.equals("draw")) {
            Long want = drawPending.remove(w.n);
            if (want == null || band != 0 || place != want) {
              return "ticket "
                  + w.n
                  + " is not where the pre-sale draw puts it (place "
                  + want
                  + ")";
            }
          }
          waiting.remove(w);
          key(w, e);
          waiting.add(w);
          return null;
        }
        case "offer" -> {
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
          offers++;
          return null;
        }
        case "admit" -> {
          Waiter w = waiter(e, true);
          tickets.remove(w.n);
          admits++;
          return null;
        }
        case "lapse" -> {
          Waiter w = waiter(e, true);
          w.ready = false;
          key(w, e);
          waiting.add(w);
          return null;
        }
        case "present" -> {
          Waiter w = known(e);
          w.away = false;
          if (e.has("heard")) {
            w.heard = Math.max(w.heard, e.number("heard"));
          }
          return null;
        }
        case "absent" -> {
          return absent(known(e), e);
        }
        case "remove", "expire" -> {
          Waiter w = known(e);
          tickets.remove(w.n);
          if (!w.ready) {
            waiting.remove(w);
          }
          return null;
        }
        case "enter" -> {
          String held = allow("a fast-path entry");
          if (held != null) {
            return held;
          }
          return waiting.isEmpty()
              ? null
              : "a fast-path entry passed " + waiting.size() + " waiting";
        }
        case "allowance" -> {
          long v = e.number("value");
          allowance = v < 0 ? Line.UNLIMITED : v;
          return null;
        }
        case "draw" -> {
          return draw(e.numbers("group"));
        }
        default -> {
          return observed(kind, e);
        }
      }
    }

    /** Entries any log may hold. */
    private String observed(String kind, LogEntry e) {
      switch (kind) {
        case "arrive", "admit", "mode", "capacity" -> {
          if (kind.equals("admit")) {
            admits++;
          }
          return null;
        }
        case "presale" -> {
          committed = e.string("seedHash");
          return null;
        }
        case "reveal" -> {
          byte[] seed = PresaleDraw.unhex(e.string("seed"));
          if (seed == null || committed == null || !PresaleDraw.sha256Hex(seed).equals(committed)) {
            return "the revealed seed does not match the SHA-256 committed before it";
          }
          revealed = seed;
          return null;
        }
        case "gap" -> {
          return e.number("lost") + " entries were lost here (the writer fell behind)";
        }
        case "close" -> {
          closed = true;
          return null;
        }
        default -> {
          return exact ? "unknown kind " + kind : null;
        }
      }
    }

    private String draw(long[] group) {
      if (revealed == null) {
        return "a pre-sale draw without a revealed seed";
      }
      List<Waiter> mine = new ArrayList<>();
      for (Waiter w : waiting) {
        if (w.band == 0 && !w.tied) {
          mine.add(w);
        }
      }
      if (mine.size() != group.length) {
        return "the draw's group has " + group.length + " arrivals, the line " + mine.size();
      }
      for (int i = 0; i < group.length; i++) {
        if (mine.get(i).n != group[i]) {
          return "the draw's group is not the line's unmoved arrivals in order (at " + i + ")";
        }
      }
      int[] order = PresaleDraw.order(revealed, group.length);
      for (int k = 0; k < order.length; k++) {
        drawPending.put(group[order[k]], mine.get(k).place);
      }
      revealed = null;
      return null;
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

    /**
     * The presence rule (issue 16): a ticket is passed over, or its untold offer lapses, only when
     * its client was silent for a whole positive window as of this entry's time, and not since a
     * moment the log itself shows it heard from (coming back present). A waiting ticket is away
     * from here on; a ready one's lapse must follow at once.
     */
    private String absent(Waiter w, LogEntry e) {
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

  private static final class Waiter {
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
}
