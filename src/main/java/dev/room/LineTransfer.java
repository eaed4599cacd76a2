package dev.room;

import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.InstantSource;
import java.util.Iterator;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Export and import of the line: {@link LineFormat} does the bytes; this decides what survives an
 * import (expired tickets dropped, downtime not charged) and restores it all or nothing.
 */
final class LineTransfer {
  private final InstantSource clock;
  private final Line line;
  private final Sale sale;
  private final Supplier<Policy> policy;

  LineTransfer(InstantSource clock, Line line, Sale sale, Supplier<Policy> policy) {
    this.clock = clock;
    this.line = line;
    this.sale = sale;
    this.policy = policy;
  }

  void exportTo(OutputStream out) throws IOException {
    LineFormat.write(line, Objects.requireNonNull(out, "out"), clock.millis(), sale.presale());
  }

  ImportStats importFrom(InputStream in) throws IOException {
    Objects.requireNonNull(in, "in");
    if (line.used()) {
      throw new IllegalStateException(
          "import must run before the room serves any traffic or grants a pass");
    }
    long now = clock.millis();
    Policy p = policy.get();
    try (ExportReader reader = new ExportReader(in)) {
      int[] counts = new int[3]; // dropped, passes kept, passes expired
      Iterator<LineEntry> tickets =
          Filtered.of(
              reader.tickets(),
              e -> {
                if (p.expired(reader.exportedAt, e.lastActivity(), e.issuedAt(), e.seen())) {
                  counts[0]++;
                  return null;
                }
                return restarted(e, now);
              });
      Iterator<long[]> passes =
          Filtered.of(
              reader.passes(),
              pass -> {
                counts[pass[2] > now ? 1 : 2]++;
                return pass[2] > now ? pass : null;
              });
      Presale before = sale.presale();
      if (reader.presale != null) {
        sale.restorePresale(reader.presale, now); // held before the restore hands any slot over
      }
      int restored;
      try {
        restored =
            reader.identitySalt == null
                ? line.restore(tickets, passes, now)
                : line.restore(tickets, passes, reader.identitySalt, now);
      } catch (RuntimeException e) {
        if (reader.presale != null) {
          sale.restorePresale(before, now);
        }
        throw e;
      }
      sale.tick(now);
      return new ImportStats(restored, counts[0], counts[1], counts[2]);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (IllegalArgumentException e) {
      throw new ImportFormatException("invalid export: " + e.getMessage(), e);
    }
  }

  /** {@code e} with the downtime forgiven: its TTL (and, if never seen, its grace) restart now. */
  private static LineEntry restarted(LineEntry e, long now) {
    return new LineEntry(
        e.hi(),
        e.lo(),
        e.band(),
        e.place(),
        e.order(),
        e.rank(),
        e.seen() ? e.issuedAt() : now,
        now,
        e.lastPoll(),
        e.seen(),
        e.hasPass(),
        e.ready(),
        e.clientKey(),
        e.promoted(),
        e.number(),
        e.identity());
  }
}
