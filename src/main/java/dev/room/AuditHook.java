package dev.room;

import dev.room.audit.AdmissionLog;
import dev.room.spi.Line;
import dev.room.spi.LineJournal;
import java.time.InstantSource;
import java.util.Objects;

/**
 * Connects a room to its {@link AdmissionLog}: the line journals its own changes when it can
 * ({@link Line#journal}), else the room records what this instance observes; the room's notes
 * (mode, pre-sale commitment and reveal) go through {@link RoomEvents#journal}.
 */
final class AuditHook {
  private volatile AdmissionLog log;

  AdmissionLog log() {
    return log;
  }

  synchronized void attach(
      AdmissionLog log, Line line, RoomEvents events, String name, InstantSource clock, Sale sale) {
    Objects.requireNonNull(log, "log");
    if (this.log != null) {
      throw new IllegalStateException("the room already has an admission log");
    }
    boolean exact = line.journal(LineJournal.NONE);
    LineJournal j = log.open(name, clock, exact);
    this.log = log;
    events.observed = !exact;
    events.journal = j;
    if (exact) {
      line.journal(j); // starts from a checkpoint of the line as it stands
    } else {
      j.record(LineJournal.CAPACITY, 0, 0, line.capacity(), 0, 0);
      j.record(LineJournal.ALLOWANCE, 0, 0, line.allowance(), 0, 0);
    }
    Presale p = sale.presale();
    if (p != null && !p.drawn()) {
      j.note("presale", p.seedHash());
    }
  }

  /** Closes the log, if any: the room is closing. */
  void close() {
    AdmissionLog l = log;
    if (l != null) {
      try {
        l.close();
      } catch (java.io.IOException e) {
        org.slf4j.LoggerFactory.getLogger(AuditHook.class)
            .warn("the admission log could not be closed cleanly", e);
      }
    }
  }
}
