package dev.room.engine;

import dev.room.spi.Identities;
import dev.room.spi.LineEntry;
import java.util.Iterator;

/**
 * A restore into an unused line: the export is read outside the lock ({@link LineArchive#read},
 * {@link PassBook#read}), then every structure takes its part over at once under it, and the
 * journal is told of each restored ticket as held.
 */
final class LineRestore {
  private final Object lock;
  private final Entrance entrance;
  private final TokenStore tokens;
  private final LineIndex index;
  private final TicketCounter counter;
  private final ServingWindow window;
  private final IdentityBook identities;
  private final LineArchive archive;
  private final PassBook passes;

  /** {@code lock} is the owning line's lock; {@code entrance} holds its used flag. */
  LineRestore(
      Object lock,
      Entrance entrance,
      TokenStore tokens,
      LineIndex index,
      TicketCounter counter,
      ServingWindow window,
      IdentityBook identities,
      LineArchive archive,
      PassBook passes) {
    this.lock = lock;
    this.entrance = entrance;
    this.tokens = tokens;
    this.index = index;
    this.counter = counter;
    this.window = window;
    this.identities = identities;
    this.archive = archive;
    this.passes = passes;
  }

  /** A restore under the export's identity salt ({@code null} for none). */
  int restore(
      Iterator<LineEntry> entries, Iterator<long[]> passList, String identitySalt, long now) {
    if (identitySalt != null && !Identities.validSalt(identitySalt)) {
      throw new IllegalArgumentException("identity salt must be 32 lowercase hex digits");
    }
    if (entrance.used) {
      throw new IllegalStateException("the line has already been used");
    }
    LineArchive.Restored read = LineArchive.read(entries, now);
    PassBook newPasses = PassBook.read(passList);
    synchronized (lock) {
      if (entrance.used) {
        throw new IllegalStateException("the line has already been used");
      }
      entrance.used = true;
      tokens.takeAll(read.tokens());
      identities.restore(identitySalt, read.identities());
      index.takeAll(read.index());
      archive.takeOver(read);
      counter.passAll(read.maxKey());
      window.restored();
      window.journalWaiting();
      passes.replace(newPasses);
      window.offerFirst(now);
      return tokens.size();
    }
  }
}
