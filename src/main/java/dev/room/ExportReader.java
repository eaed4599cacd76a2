package dev.room;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.room.engine.PresaleDraw;
import dev.room.spi.Identities;
import dev.room.spi.LineEntry;
import dev.room.spi.Tokens;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A streaming reader of the {@link LineFormat export format}: the header eagerly, tickets and
 * passes lazily, the trailer last. Every departure from the format is an {@link
 * ImportFormatException} (from the iterators, inside an {@link UncheckedIOException}).
 */
final class ExportReader implements AutoCloseable {
  private final JsonParser p;
  final long exportedAt;
  final int capacity;
  final Presale presale;

  /** The salt the tickets' identity hashes were made with, or null when the file has none. */
  final String identitySalt;

  private long ticketsRead;
  private long passesRead;

  ExportReader(InputStream in) throws IOException {
    JsonParser parser;
    try {
      parser = LineFormat.JSON.createParser(in);
      parser.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
      expect(parser.nextToken(), JsonToken.START_OBJECT, "an object");
      this.p = parser;
      expectString("format", LineFormat.FORMAT);
      long version = number("version");
      if (version != LineFormat.VERSION && version != LineFormat.PRESALE_VERSION) {
        throw new ImportFormatException("unsupported export version " + version);
      }
      exportedAt = number("exported_at_ms");
      long cap = number("capacity");
      if (cap < 1 || cap > Integer.MAX_VALUE) {
        throw new ImportFormatException("capacity out of range: " + cap);
      }
      capacity = (int) cap;
      presale = version == LineFormat.PRESALE_VERSION ? presale() : null;
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
          if (arrival < 1 || arrival > LineFormat.MAX_PLACE || ready) {
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
        if (place < 0
            || order < 0
            || place > LineFormat.MAX_PLACE
            || order > LineFormat.MAX_PLACE) {
          throw new ImportFormatException(
              "place and order must be 0 to 2^52 ("
                  + LineFormat.MAX_PLACE
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
