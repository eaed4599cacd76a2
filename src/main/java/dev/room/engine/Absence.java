package dev.room.engine;

import dev.room.spi.Line;
import dev.room.spi.LineJournal;

/**
 * Absence (issue 16: keep the origin busy): a slot offered to a page that stopped polling sits idle
 * until the offer lapses, so a client silent for the presence window is passed over.
 *
 * <p>Presence. A waiting ticket is present or {@linkplain Ticket#away away}. Away tickets are the
 * restored ones whose client has not polled since the import and the ones whose offer lapsed; they
 * keep their place (and count in everyone's position) but a freed slot goes to the first
 * <em>present</em> waiter, found through the index's present counts. A poll or claim makes a ticket
 * present again; standing ahead, it is offered the next slot that frees (at once when one is free).
 * A lapsed offer is not an ending: the ticket goes back to waiting at its own place.
 *
 * <p>Guarded by the owning line's lock; the window hands on the slots (its rebalance).
 */
final class Absence {
  private final ServingWindow window;
  private final LineIndex index;
  private long presenceWindow; // Line.lapseAbsent puts it in force; 0 = off

  Absence(ServingWindow window, LineIndex index) {
    this.window = window;
    this.index = index;
  }

  /**
   * Turns waiting {@code t} away when its client was silent for the presence window: a slot offered
   * to a page that stopped polling sits idle until the offer lapses. It keeps its place; its next
   * poll makes it present again, and standing ahead it gets the next slot that frees.
   */
  boolean passOver(Ticket t, long now) {
    if (presenceWindow <= 0 || now - t.lastActivity() < presenceWindow) {
      return false;
    }
    window.journal.record(LineJournal.ABSENT, t.number, 0, t.lastActivity(), presenceWindow, 0);
    index.setAway(t, true);
    return true;
  }

  /**
   * {@link Line#lapseAbsent}: puts the window in force, lapses the offers whose clients were not
   * told and have been silent for it (each waits again, away, at its own place) and hands their
   * slots on. Walks the ready list, at most capacity long. Returns how many lapsed.
   */
  int lapseAbsent(long now, long presence) {
    presenceWindow = Math.max(0, presence);
    int lapsed = 0;
    if (presenceWindow > 0) {
      for (Ticket r = window.firstReady(); r != null; ) {
        Ticket next = r.right;
        if (!r.told() && now - r.lastActivity() >= presenceWindow) {
          window.journal.record(
              LineJournal.ABSENT, r.number, 0, r.lastActivity(), presenceWindow, 0);
          window.lapse(r, true);
          lapsed++;
        }
        r = next;
      }
    }
    if (lapsed > 0 || (index.present() > 0 && window.slotFree())) {
      window.rebalance(now);
    }
    return lapsed;
  }
}
