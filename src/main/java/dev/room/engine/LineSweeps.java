package dev.room.engine;

import dev.room.TicketInfo;
import dev.room.spi.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Removals from outside the line: one ticket ({@link dev.room.spi.Line#remove}) and the passes over
 * the whole line ({@link dev.room.spi.Line#removeIf}, {@link dev.room.spi.Line#evict}). A pass
 * takes its tickets at the start, then works through them a chunk per hold of the owning line's
 * lock, so a pass over millions never holds up a status poll for long. User predicates run outside
 * the lock.
 */
final class LineSweeps {
  private static final int SCAN_CHUNK = 4096;

  private final Object lock;
  private final TokenStore tokens;
  private final Retirement retirement;
  private final IdentityBook identities;
  private final LineReader reader;

  /** {@code lock} is the owning line's lock, taken here a chunk at a time. */
  LineSweeps(
      Object lock,
      TokenStore tokens,
      Retirement retirement,
      IdentityBook identities,
      LineReader reader) {
    this.lock = lock;
    this.tokens = tokens;
    this.retirement = retirement;
    this.identities = identities;
    this.reader = reader;
  }

  boolean remove(long hi, long lo, long now) {
    synchronized (lock) {
      Ticket t = tokens.get(hi, lo);
      if (t == null) {
        return false;
      }
      retirement.retire(t, now);
      return true;
    }
  }

  int removeIf(Predicate<TicketInfo> match, long now) {
    List<Ticket> candidates = new ArrayList<>();
    List<TicketInfo> infos = new ArrayList<>();
    reader.snapshot(candidates, infos);
    List<Ticket> chosen = new ArrayList<>();
    for (int i = 0; i < infos.size(); i++) {
      if (match.test(infos.get(i))) {
        chosen.add(candidates.get(i));
      }
    }
    int removed = 0;
    int chunk = LineReader.SNAPSHOT_CHUNK;
    for (int from = 0; from < chosen.size(); from += chunk) {
      synchronized (lock) {
        for (Ticket t : chosen.subList(from, Math.min(chosen.size(), from + chunk))) {
          if (t.state() != Ticket.GONE && tokens.get(t.hi(), t.lo()) == t) {
            retirement.retire(t, now);
            removed++;
          }
        }
      }
    }
    return removed;
  }

  int[] evict(long now, Policy p) {
    int[] counts = {0, 0}; // evicted, timed out
    Ticket[] due = new Ticket[SCAN_CHUNK];
    Ticket[] all;
    synchronized (lock) {
      all = tokens.snapshot(); // every ticket at the pass's start, whatever moves the table later
    }
    for (int from = 0; from < all.length; from += SCAN_CHUNK) {
      synchronized (lock) {
        retirement.sweep(all, from, Math.min(all.length, from + SCAN_CHUNK), now, p, counts, due);
      }
    }
    synchronized (lock) {
      identities.sweep(now, p.ttl());
    }
    return counts;
  }
}
