package dev.room.audit;

import dev.room.engine.PresaleDraw;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pre-sale lottery as a log records it: the {@code reveal} matches the SHA-256 committed
 * ({@code presale}) before it, and the {@code draw}'s moves are exactly the Fisher–Yates order
 * {@link PresaleDraw} recomputes from the seed.
 */
final class ReplayedDraw {
  private final Map<Long, Long> pending = new HashMap<>(); // ticket → the place the draw gives it
  private String committed;
  private byte[] revealed;

  /** A {@code presale} entry: the commitment to a seed. */
  void commit(LogEntry e) {
    committed = e.string("seedHash");
  }

  /** A {@code reveal} entry; returns null, or why it does not match the commitment. */
  String reveal(LogEntry e) {
    byte[] seed = PresaleDraw.unhex(e.string("seed"));
    if (seed == null || committed == null || !PresaleDraw.sha256Hex(seed).equals(committed)) {
      return "the revealed seed does not match the SHA-256 committed before it";
    }
    revealed = seed;
    return null;
  }

  /**
   * A {@code draw} entry of {@code group} over the line's {@code unmoved} waiters, in line order;
   * returns null, or why it is not the draw. The moves it makes are then due.
   */
  String draw(long[] group, List<ReplayedLine.Waiter> unmoved) {
    if (revealed == null) {
      return "a pre-sale draw without a revealed seed";
    }
    if (unmoved.size() != group.length) {
      return "the draw's group has " + group.length + " arrivals, the line " + unmoved.size();
    }
    for (int i = 0; i < group.length; i++) {
      if (unmoved.get(i).n != group[i]) {
        return "the draw's group is not the line's unmoved arrivals in order (at " + i + ")";
      }
    }
    int[] order = PresaleDraw.order(revealed, group.length);
    for (int k = 0; k < order.length; k++) {
      pending.put(group[order[k]], unmoved.get(k).place);
    }
    revealed = null;
    return null;
  }

  /** Ticket {@code n}'s move by the draw: the place it must go to, or null when none is due. */
  Long placed(long n) {
    return pending.remove(n);
  }

  /** The tickets whose moves by the draw are still due. */
  Set<Long> unplaced() {
    return pending.keySet();
  }
}
