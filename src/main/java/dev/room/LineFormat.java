package dev.room;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.room.engine.PresaleDraw;
import dev.room.spi.Identities;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.Tokens;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

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

  private static final JsonFactory JSON =
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

  /** A streaming reader: the header eagerly, tickets and passes lazily, the trailer last. */
  static final class Reader implements AutoCloseable {
    private final JsonParser p;
    final long exportedAt;
    final int capacity;
    final Presale presale;

    /** The salt the tickets' identity hashes were made with, or null when the file has none. */
    final String identitySalt;

    private long ticketsRead;
    private long passesRead;

    Reader(InputStream in) throws IOException {
      JsonParser parser;
      try {
        parser = JSON.createParser(in);
        parser.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
        expect(parser.nextToken(), JsonToken.START_OBJECT, "an object");
        this.p = parser;
        expectString("format", FORMAT);
        long version = number("version");
        if (version != VERSION && version != PRESALE_VERSION) {
          throw new ImportFormatException("unsupported export version " + version);
        }
        exportedAt = number("exported_at_ms");
        long cap = number("capacity");
        if (cap < 1 || cap > Integer.MAX_VALUE) {
          throw new ImportFormatException("capacity out of range: " + cap);
        }
        capacity = (int) cap;
        presale = version == PRESALE_VERSION ? presale() : null;
        JsonToken next = parser.nextToken();
        String salt = null;
        if (next == JsonToken.FIELD_NAME && "identity_salt".equals(parser.currentName())) {
          expect(parser.nextToken(), JsonToken.VALUE_STRING, "a string for identity_salt");
          salt = parser.getText();
          if (!Identities.validSalt(salt)) {
            throw new ImportFormatException("identity_salt must be 32 lowercase hex digits");
          }
          next = parser.nextToken();
        }
        identitySalt = salt;
        if (next != JsonToken.FIELD_NAME || !"tickets".equals(parser.currentName())) {
          throw new ImportFormatException("expected field 'tickets'");
        }
        expect(p.nextToken(), JsonToken.START_ARRAY, "an array of tickets");
      } catch (ImportFormatException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        throw new ImportFormatException("not a room export: " + e.getMessage(), e);
      }
    }

    /** Tickets in file order; throws UncheckedIOException wrapping ImportFormatException. */
    Iterator<LineEntry> tickets() {
      return new Lazy<>() {
        @Override
        LineEntry read() throws IOException {
          JsonToken t = p.nextToken();
          if (t == JsonToken.END_ARRAY) {
            field("passes");
            expect(p.nextToken(), JsonToken.START_ARRAY, "an array of passes");
            return null;
          }
          expect(t, JsonToken.START_OBJECT, "a ticket object");
          String token = token("token");
          long band = number("band");
          long place = number("place");
          long order = number("order");
          long rank = number("rank");
          long issuedAt = number("issued_at_ms");
          long lastActivity = number("last_activity_ms");
          field("last_poll_ms");
          JsonToken lp = p.nextToken();
          long lastPoll;
          if (lp == JsonToken.VALUE_NULL) {
            lastPoll = Long.MIN_VALUE;
          } else {
            expect(lp, JsonToken.VALUE_NUMBER_INT, "a whole number for last_poll_ms");
            lastPoll = p.getLongValue();
          }
          boolean seen = bool("seen");
          boolean hasPass = bool("has_pass");
          boolean ready = bool("ready");
          String clientKey = string("client_key");
          JsonToken end = p.nextToken();
          long arrival = 0;
          if (end == JsonToken.FIELD_NAME && "arrival".equals(p.currentName())) {
            expect(p.nextToken(), JsonToken.VALUE_NUMBER_INT, "a whole number for arrival");
            arrival = p.getLongValue();
            if (arrival < 1 || arrival > MAX_PLACE || ready) {
              throw new ImportFormatException("arrival out of range or on a ready ticket");
            }
            end = p.nextToken();
          }
          String identity = null;
          if (end == JsonToken.FIELD_NAME && "identity".equals(p.currentName())) {
            expect(p.nextToken(), JsonToken.VALUE_STRING, "a string for identity");
            identity = p.getText();
            if (!Identities.validHash(identity) || identitySalt == null) {
              throw new ImportFormatException(
                  "identity must be 40 lowercase hex digits, in a file with an identity_salt");
            }
            end = p.nextToken();
          }
          expect(end, JsonToken.END_OBJECT, "the end of a ticket");
          if (band < 0 || band > Integer.MAX_VALUE - 1 || rank < 0 || rank > Integer.MAX_VALUE) {
            throw new ImportFormatException("band or rank out of range");
          }
          if (place < 0 || order < 0 || place > MAX_PLACE || order > MAX_PLACE) {
            throw new ImportFormatException(
                "place and order must be 0 to 2^52 ("
                    + MAX_PLACE
                    + "), were "
                    + place
                    + " and "
                    + order);
          }
          if (!Checks.clientKey(clientKey).equals(clientKey)) {
            throw new ImportFormatException("client_key longer than 256 bytes");
          }
          ticketsRead++;
          return new LineEntry(
              Tokens.hi(token),
              Tokens.lo(token),
              (int) band,
              place,
              order,
              (int) rank,
              issuedAt,
              lastActivity,
              lastPoll,
              seen,
              hasPass,
              ready,
              clientKey,
              !ready && arrival == 0 && place != order,
              arrival != 0 ? arrival : order,
              identity);
        }
      };
    }

    /** Passes as {hi, lo, expiresAt}; reading the last one also checks the trailer. */
    Iterator<long[]> passes() {
      return new Lazy<>() {
        @Override
        long[] read() throws IOException {
          JsonToken t = p.nextToken();
          if (t == JsonToken.END_ARRAY) {
            if (number("ticket_count") != ticketsRead || number("pass_count") != passesRead) {
              throw new ImportFormatException("counts do not match: the export is incomplete");
            }
            expect(p.nextToken(), JsonToken.END_OBJECT, "the end of the export");
            if (p.nextToken() != null) {
              throw new ImportFormatException("trailing data after the export");
            }
            return null;
          }
          expect(t, JsonToken.START_OBJECT, "a pass object");
          String token = token("token");
          long expiresAt = number("expires_at_ms");
          expect(p.nextToken(), JsonToken.END_OBJECT, "the end of a pass");
          passesRead++;
          return new long[] {Tokens.hi(token), Tokens.lo(token), expiresAt};
        }
      };
    }

    @Override
    public void close() throws IOException {
      p.close();
    }

    private Presale presale() throws IOException {
      field("presale");
      expect(p.nextToken(), JsonToken.START_OBJECT, "a presale object");
      long opensAt = number("opens_at_ms");
      byte[] seed = PresaleDraw.unhex(string("seed"));
      boolean drawn = bool("drawn");
      long group = number("group");
      expect(p.nextToken(), JsonToken.END_OBJECT, "the end of the presale object");
      if (seed == null || seed.length != PresaleDraw.SEED_BYTES) {
        throw new ImportFormatException("presale seed must be 64 hex digits");
      }
      if (group < 0 || group > Integer.MAX_VALUE || (!drawn && group != 0)) {
        throw new ImportFormatException("presale group out of range: " + group);
      }
      return new Presale(opensAt, seed, drawn, (int) group);
    }

    private void field(String name) throws IOException {
      JsonToken t = p.nextToken();
      if (t != JsonToken.FIELD_NAME || !name.equals(p.currentName())) {
        throw new ImportFormatException("expected field '" + name + "'");
      }
    }

    private long number(String name) throws IOException {
      field(name);
      expect(p.nextToken(), JsonToken.VALUE_NUMBER_INT, "a whole number for " + name);
      return p.getLongValue();
    }

    private boolean bool(String name) throws IOException {
      field(name);
      JsonToken t = p.nextToken();
      if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
        throw new ImportFormatException("expected true or false for " + name);
      }
      return t == JsonToken.VALUE_TRUE;
    }

    private String string(String name) throws IOException {
      field(name);
      expect(p.nextToken(), JsonToken.VALUE_STRING, "a string for " + name);
      return p.getText();
    }

    private String token(String name) throws IOException {
      String s = string(name);
      if (!Tokens.valid(s)) {
        throw new ImportFormatException("malformed token");
      }
      return s;
    }

    private void expectString(String name, String value) throws IOException {
      if (!value.equals(string(name))) {
        throw new ImportFormatException("not a room export (" + name + ")");
      }
    }

    private static void expect(JsonToken actual, JsonToken wanted, String what)
        throws ImportFormatException {
      if (actual != wanted) {
        throw new ImportFormatException("expected " + what + ", found " + actual);
      }
    }
  }

  /** An iterator over items read on demand; {@code read} returns null at the end. */
  private abstract static class Lazy<T> implements Iterator<T> {
    private T next;
    private boolean done;

    abstract T read() throws IOException;

    @Override
    public boolean hasNext() {
      if (next == null && !done) {
        try {
          next = read();
        } catch (ImportFormatException e) {
          throw new UncheckedIOException(e);
        } catch (IOException | RuntimeException e) {
          throw new UncheckedIOException(
              new ImportFormatException("malformed export: " + e.getMessage(), e));
        }
        done = next == null;
      }
      return next != null;
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      T t = next;
      next = null;
      return t;
    }
  }
}
