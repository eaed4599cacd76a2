package dev.room.engine;

import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;

/**
 * The retirement path: the one way a ticket ends besides admission (expired, removed, reaped).
 * Leaving the token store is the atomic step that ends a ticket, so retirement racing a claim
 * accounts for it exactly once. A waiting ticket leaves the index, so everyone behind moves up at
 * once and the window never has to skip it later (the role of the Go version's ghost ledger); a
 * ready ticket gives back its reserved slot, which the window hands on.
 *
 * <p>Not thread-safe: every method is called with the owning line's lock held.
 */
final class Retirement {
  private final TokenStore tokens;
  private final LineIndex index;
  private final ServingWindow window;

  Retirement(TokenStore tokens, LineIndex index, ServingWindow window) {
    this.tokens = tokens;
    this.index = index;
    this.window = window;
  }

  static boolean expired(Ticket t, long now, Policy p) {
    return expired(t.records(), t.rec(), now, p);
  }

  /** {@link #expired(Ticket, long, Policy)} of the ticket in record {@code r}, read from it. */
  static boolean expired(TicketRecords rs, int r, long now, Policy p) {
    return p.expired(
        now,
        rs.get(r, TicketRecords.LAST_ACTIVITY),
        rs.get(r, TicketRecords.ISSUED_AT),
        rs.is(r, Ticket.SEEN));
  }

  /** Ends a ticket that will never be admitted; a freed slot is handed on. */
  void retire(Ticket t, long now) {
    retire(t, now, LineJournal.REMOVE);
  }

  /** {@link #retire}, journalled as {@code kind} (removed or expired). */
  void retire(Ticket t, long now, int kind) {
    window.journal.record(kind, t.number, 0, 0, 0, 0);
    if (retireQuietly(t)) {
      window.rebalance(now);
    }
  }

  /** An expired ticket is evicted, whatever its state: a lapsed offer alone never retires one. */
  long retireExpired(Ticket t, long now) {
    retire(t, now, LineJournal.EXPIRE);
    return Outcome.of(Outcome.UNKNOWN, 0, Outcome.EVICTED);
  }

  /** Ends a ticket; returns whether it freed a slot, which the caller hands on. */
  boolean retireQuietly(Ticket t) {
    tokens.remove(t);
    if (t.state() == Ticket.WAITING) {
      window.dequeue(t);
    } else if (t.state() == Ticket.READY) {
      window.unlinkReady(t);
      t.end();
      window.releaseReserved();
      return true;
    }
    t.end();
    return false;
  }

  /**
   * One chunk of a reaper pass over {@code all[from, to)}: retires the expired, lapses the due
   * offers, then hands freed slots on, only to live tickets, so a slot never goes to a ticket this
   * pass is about to reclaim. Adds to {@code counts}: {evicted, timed out}.
   */
  void sweep(Ticket[] all, int from, int to, long now, Policy p, int[] counts, Ticket[] due) {
    int n = 0;
    for (int i = from; i < to; i++) {
      Ticket t = all[i];
      if (t.state() != Ticket.GONE && (expired(t, now, p) || ServingWindow.lapsed(t, now, p))) {
        due[n++] = t;
      }
    }
    for (int i = 0; i < n; i++) {
      Ticket t = due[i];
      if (expired(t, now, p)) {
        window.journal.record(LineJournal.EXPIRE, t.number, 0, 0, 0, 0);
        retireQuietly(t);
        counts[0]++;
      } else if (window.lapse(t, true)) {
        counts[1]++;
      }
    }
    counts[0] += rebalanceLive(now, p);
  }

  /**
   * Like {@link ServingWindow#rebalance}, for the reaper: a present waiter found expired at the
   * head is retired instead of being handed a slot. Returns how many were.
   */
  private int rebalanceLive(long now, Policy p) {
    int retired = 0;
    while (window.allowance() > 0 && index.present() > 0 && window.slotFree()) {
      Ticket t = index.firstPresent();
      if (expired(t, now, p)) {
        window.journal.record(LineJournal.EXPIRE, t.number, 0, 0, 0, 0);
        retireQuietly(t);
        retired++;
      } else if (window.absence.passOver(t, now)) {
        continue;
      } else if (window.tryReserve()) {
        window.offer(t, now);
      } else {
        break;
      }
    }
    return retired;
  }
}
