package dev.room;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.room.engine.PresaleDraw;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.Tokens;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The export format, versions 1 and 2: one JSON object, streamed in both directions.
 *
 * <pre>{@code
 * {"format":"dev.room/line","version":1,"exported_at_ms":...,"capacity":...,
 *  "tickets":[{"token":"<32 hex>","band":0,"place":7,"order":7,"rank":0,
 *              "issued_at_ms":...,"last_activity_ms":...,"last_poll_ms":...|null,
 *              "seen":true,"has_pass":false,"ready":false,"client_key":""}, ...],
 *  "passes":[{"token":"<32 hex>","expires_at_ms":...}, ...],
 *  "ticket_count":N,"pass_count":M}
 * }</pre>
 *
 * Version 2 is version 1 with the room's pre-sale lottery after {@code capacity}:
 *
 * <pre>{@code
 * "presale":{"opens_at_ms":...,"seed":"<64 hex>","drawn":false,"group":0},
 * }</pre>
 *
 * {@code group} is the number of arrivals the draw placed (0 before it). The seed is the lottery's
 * secret until the draw, like the tokens the file holds anyway. A room without a pre-sale writes
 * version 1, so readers that predate version 2 keep reading it; both versions are read.
 *
 * <p>Tickets are in line order, ready ones first. Fields appear in this order and every one is
 * required, except {@code "arrival"}, written last on a waiting ticket that holds its place while
 * its order differs from its place (a promotion into its tie gave it a fresher order so it stands
 * behind the promoted, or the pre-sale draw or a rank move gave it a new place): the ticket's
 * arrival number. Without it a waiting ticket holds its place when {@code order} equals {@code
 * place} and is tied into it (promoted) otherwise, which is how every file reads that has no such
 * ticket, including those written before the field existed. Anything else, a count that does not
 * match, or trailing data is a format error, so a truncated or edited file is refused rather than
 * half-read. A band is 0 to {@code Integer.MAX_VALUE - 1} (the band above is the lines' own, for
 * restored ready clients), a place, order or arrival 0 to {@link #MAX_PLACE}.
 *
 * <p>One place per identity adds two optional fields to either version, written only by a line that
 * has bound an identity, so every other export is byte for byte what it was: {@code
 * "identity_salt":"<32 hex>"} after {@code capacity} (and {@code presale}), the room's salt, and
 * {@code "identity":"<40 hex>"} last on a ticket bound to an identity, the identity's salted hash
 * ({@link Identities}); never the identity itself.
 */
final class LineFormat {
  static final String FORMAT = "dev.room/line";
  static final int VERSION = 1;
  static final int PRESALE_VERSION = 2;

  /**
   * The largest place, order or arrival number a file may hold. A restored line's counter starts
   * from the largest one and goes up by one per arrival, promotion or rank, so it needs room to
   * grow: the Redis line keeps places in Lua numbers (doubles, exact up to 2^53), and 2^52 leaves
   * 2^52 more keys above it before that limit, some 140 years at a million a second. A line's own
   * counter starts at 1, so no real file comes near it. Checked here for both lines, in one place.
   */
  static final long MAX_PLACE = 1L << 52;

  static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxStringLength(4096).maxNestingDepth(4).build())
          .build();

  private LineFormat() {}

  static void write(Line line, OutputStream out, long now, Presale presale) throws IOException {
    try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      g.writeStartObject();
      g.writeStringField("format", FORMAT);
      g.writeNumberField("version", presale == null ? VERSION : PRESALE_VERSION);
      g.writeNumberField("exported_at_ms", now);
      g.writeNumberField("capacity", line.capacity());
      if (presale != null) {
        g.writeObjectFieldStart("presale");
        g.writeNumberField("opens_at_ms", presale.opensAt());
        g.writeStringField("seed", PresaleDraw.hex(presale.seed()));
        g.writeBooleanField("drawn", presale.drawn());
        g.writeNumberField("group", presale.group());
        g.writeEndObject();
      }
      String salt = line.identitySalt();
      if (salt != null) {
        g.writeStringField("identity_salt", salt);
      }
      g.writeArrayFieldStart("tickets");
      long[] tickets = {0};
      List<long[]> passes = new ArrayList<>();
      try {
        line.export(
            e -> {
              writeTicket(g, e);
              tickets[0]++;
            },
            passes::add);
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("passes");
      for (long[] pass : passes) {
        g.writeStartObject();
        g.writeStringField("token", Tokens.format(pass[0], pass[1]));
        g.writeNumberField("expires_at_ms", pass[2]);
        g.writeEndObject();
      }
      g.writeEndArray();
      long[] counts = {tickets[0], passes.size()};
      g.writeNumberField("ticket_count", counts[0]);
      g.writeNumberField("pass_count", counts[1]);
      g.writeEndObject();
    }
    out.flush();
  }

  private static void writeTicket(JsonGenerator g, LineEntry e) {
    try {
      g.writeStartObject();
      g.writeStringField("token", Tokens.format(e.hi(), e.lo()));
      g.writeNumberField("band", e.band());
      g.writeNumberField("place", e.place());
      g.writeNumberField("order", e.order());
      g.writeNumberField("rank", e.rank());
      g.writeNumberField("issued_at_ms", e.issuedAt());
      g.writeNumberField("last_activity_ms", e.lastActivity());
      g.writeFieldName("last_poll_ms");
      if (e.lastPoll() == Long.MIN_VALUE) {
        g.writeNull();
      } else {
        g.writeNumber(e.lastPoll());
      }
      g.writeBooleanField("seen", e.seen());
      g.writeBooleanField("has_pass", e.hasPass());
      g.writeBooleanField("ready", e.ready());
      g.writeStringField("client_key", e.clientKey());
      if (e.holdsPlaceOffOrder()) {
        g.writeNumberField("arrival", e.number());
      }
      if (e.identity() != null) {
        g.writeStringField("identity", e.identity());
      }
      g.writeEndObject();
    } catch (IOException x) {
      throw new UncheckedIOException(x);
    }
  }
}
