package dev.room.engine;

import dev.room.spi.LineEntry;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Consumer;

/**
 * The line as exported and restored: ready tickets first, then the waiting ones in line order.
 * Export copies a chunk per hold of the owning line's lock; a restore is read into a fresh index
 * and token store outside the lock, which the line then takes over at once.
 */
final class LineArchive {
  private final Object lock;
  private final LineIndex index;
  private final ServingWindow window;
  private final IdentityBook identities;

  /**
   * For each client restored as ready, the entry it was read from, which its export writes back.
   * Kept here rather than in every ticket (a field more would round each ticket up from 128 to 136
   * bytes for the few restored as ready); weak, so an entry goes with its ticket's ending. Guarded
   * by the line's lock.
   */
  private Map<Ticket, LineEntry> restoredReady = new WeakHashMap<>();

  /** {@code lock} is the owning line's lock, taken here a chunk at a time. */
  LineArchive(Object lock, LineIndex index, ServingWindow window, IdentityBook identities) {
    this.identities = identities;
    this.lock = lock;
    this.index = index;
    this.window = window;
  }

  void export(Consumer<LineEntry> sink) {
    List<LineEntry> chunk = new ArrayList<>(LineReader.SNAPSHOT_CHUNK);
    synchronized (lock) {
      for (Ticket r = window.firstReady(); r != null; r = r.right) {
        chunk.add(entry(r, true, restoredReady.get(r), identities.of(r)));
      }
    }
    chunk.forEach(sink);
    Ticket after = null;
    while (true) {
      chunk.clear();
      synchronized (lock) {
        Ticket start = after == null ? index.first() : index.after(after);
        if (start == null) {
          break;
        }
        Ticket[] last = {null};
        index.forEachFrom(
            start,
            LineReader.SNAPSHOT_CHUNK,
            t -> {
              chunk.add(entry(t, false, restoredReady.get(t), identities.of(t)));
              last[0] = t;
            });
        after = Ticket.keyOf(last[0]);
      }
      chunk.forEach(sink);
    }
  }

  /**
   * A ticket as exported. A client restored as ready is written back as it was read, whether or not
   * it got a slot since; a client that joined its group (a pass, a promotion) is written as ready
   * too, right behind it, as the format has no way to tie with a ready client.
   */
  private static LineEntry entry(Ticket t, boolean ready, LineEntry was, String identity) {
    boolean called = t.band == Ticket.CALLED;
    return new LineEntry(
        t.hi(),
        t.lo(),
        was != null ? was.band() : called ? 0 : t.band,
        was != null ? was.place() : t.place,
        was != null ? was.order() : t.order,
        t.rank,
        t.issuedAt(),
        t.lastActivity(),
        t.polled() ? t.lastPoll() : Long.MIN_VALUE,
        t.seen(),
        t.hasPass(),
        ready || called,
        t.clientKey == null ? "" : t.clientKey,
        t.promoted() && !ready && !called,
        was != null ? was.number() : t.number,
        identity);
  }

  /**
   * A restore read, not yet taken over: every key restored is at most {@code maxKey}; {@code
   * readyEntries} maps each ticket restored as ready to its entry, {@code identities} each ticket
   * bound to an identity to its hash.
   */
  record Restored(
      TokenStore tokens,
      LineIndex index,
      long maxKey,
      Map<Ticket, LineEntry> readyEntries,
      Map<Ticket, String> identities) {}

  /** Takes over a restore's entries of clients restored as ready (under the line's lock). */
  void takeOver(Restored read) {
    restoredReady = read.readyEntries();
  }

  /** Reads {@code entries}, in line order, as waiting tickets whose clients are away. */
  static Restored read(Iterator<LineEntry> entries, long now) {
    TokenStore newTokens = new TokenStore();
    LineIndex newIndex = new LineIndex();
    Ticket previous = null;
    long maxKey = 0;
    long called = 0;
    Map<Ticket, LineEntry> ready = new WeakHashMap<>();
    Map<Ticket, String> bound = new IdentityHashMap<>();
    while (entries.hasNext()) {
      LineEntry e = entries.next();
      Ticket t = newTokens.issue(e.hi(), e.lo(), e.number());
      if (t == null) {
        throw new IllegalArgumentException("duplicate token");
      }
      if (e.ready()) { // called before the restart: first in line, in the file's order
        t.band = Ticket.CALLED;
        t.place = ++called;
        t.order = t.place;
        ready.put(t, e);
      } else {
        t.band = e.band();
        t.place = e.place();
        t.order = e.order();
      }
      // Every later place and tie order comes from the counter: it passes every key restored.
      maxKey =
          Math.max(
              Math.max(maxKey, e.number()),
              Math.max(Math.max(t.place, t.order), Math.max(e.place(), e.order())));
      if (previous != null && previous.compareTo(t) >= 0) {
        throw new IllegalArgumentException("tickets are not in line order");
      }
      t.rank = e.rank();
      t.issuedAt(e.issuedAt());
      t.lastActivity(e.lastActivity());
      t.polled(e.lastPoll() != Long.MIN_VALUE);
      t.lastPoll(t.polled() ? e.lastPoll() : 0);
      t.seen(e.seen());
      t.hasPass(e.hasPass());
      t.promoted(!e.ready() && e.promoted());
      t.clientKey = e.clientKey();
      if (e.identity() != null) {
        bound.put(t, e.identity());
      }
      t.cookiesSentAt(Ticket.COOKIES_DUE);
      t.state(Ticket.WAITING);
      t.away(true); // until its client polls: nobody has been heard from since the export
      newIndex.insert(t);
      previous = t;
    }
    return new Restored(newTokens, newIndex, maxKey, ready, bound);
  }
}
