package dev.room.audit;

import java.util.List;

/**
 * The replay of an {@link AdmissionLog}, one entry at a time: its {@link HashChain}, and, from an
 * {@code exact} log, the {@link ReplayedLine} and the pre-sale's {@link ReplayedDraw}. An {@code
 * observed} log (a line that cannot journal, such as Redis) is checked for its chain and its
 * pre-sale commitment only.
 */
final class Replay {
  private final HashChain chain = new HashChain();
  private final ReplayedLine line = new ReplayedLine();
  private final ReplayedDraw draw = new ReplayedDraw();
  private long offers;
  private long admits;
  private boolean exact;
  private boolean closed;
  private boolean checkpoint;

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
      headSeen |= chain.head().equals(head);
    }
    if (lines.isEmpty()) {
      return "the log is empty";
    }
    if (!draw.unplaced().isEmpty()) {
      return "end of log: the pre-sale draw did not place " + draw.unplaced();
    }
    if (!closed && !open) {
      return "end of log: no close entry (cut short? pass --open for a log still being written)";
    }
    return headSeen ? null : "no entry has the published head " + head;
  }

  /** The hash of the last entry checked. */
  String head() {
    return chain.head();
  }

  long offers() {
    return offers;
  }

  long admits() {
    return admits;
  }

  private String entry(String text, int index) {
    LogEntry e = LogEntry.parse(text, index + 1);
    String why = chain.link(text, e);
    if (why != null) {
      return why;
    }
    String kind = e.string("kind");
    why = line.lapseDue(kind, e);
    if (why != null) {
      return why;
    }
    if (index == 0 && !kind.equals("genesis")) {
      return "the first entry must be a genesis";
    }
    if (closed && !kind.equals("genesis")) {
      return "an entry after close";
    }
    if (!draw.unplaced().isEmpty() && !(kind.equals("move") && e.string("why").equals("draw"))) {
      return "the pre-sale draw did not place " + draw.unplaced() + " before this entry";
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

  private String policy(String kind, LogEntry e) {
    switch (kind) {
      case "genesis" -> {
        if (!AdmissionLog.FORMAT.equals(e.string("format"))) {
          return "unknown format " + e.string("format");
        }
        exact = e.string("line").equals("exact");
        closed = false;
        checkpoint = true;
        line.reset();
        return null;
      }
      case "arrive" -> {
        return line.arrive(e);
      }
      case "held" -> {
        return line.hold(e);
      }
      case "move" -> {
        return line.move(e, draw);
      }
      case "offer" -> {
        String why = line.offer(e);
        if (why == null) {
          offers++;
        }
        return why;
      }
      case "admit" -> {
        line.admit(e);
        admits++;
        return null;
      }
      case "lapse" -> {
        return line.lapse(e);
      }
      case "present" -> {
        return line.present(e);
      }
      case "absent" -> {
        return line.absent(e);
      }
      case "remove", "expire" -> {
        return line.remove(e);
      }
      case "enter" -> {
        return line.enter();
      }
      case "allowance" -> {
        return line.allowance(e);
      }
      case "draw" -> {
        return draw.draw(e.numbers("group"), line.unmoved());
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
        draw.commit(e);
        return null;
      }
      case "reveal" -> {
        return draw.reveal(e);
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
}
