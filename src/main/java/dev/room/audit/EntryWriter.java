package dev.room.audit;

import dev.room.spi.LineJournal;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Formats journal records as log lines and chains them: the writer thread's half of {@link
 * AdmissionLog}. Not thread-safe; one writer thread owns it.
 */
final class EntryWriter {
  static final String ZERO = "0".repeat(64);
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final MessageDigest sha = sha256();
  private final MessageDigest ids = sha256();
  private final StringBuilder b = new StringBuilder(256);
  private byte[] bytes = new byte[512];
  private long seq;
  private String prev;

  EntryWriter(long seq, String prev) {
    this.seq = seq;
    this.prev = prev;
  }

  /** Writes one record {kind, number, band, place, order, flags, time} with its extra. */
  void write(long[] r, Object x, byte[] salt, OutputStream out) throws IOException {
    int kind = (int) r[0];
    b.setLength(0);
    b.append("{\"seq\":").append(seq).append(",\"t\":").append(r[6]).append(",\"kind\":\"");
    if ((kind & AdmissionLog.OBSERVED) != 0) {
      observed(kind & ~AdmissionLog.OBSERVED, r, salt);
    } else {
      exact(kind, r, x);
    }
    b.append(",\"prev\":\"").append(prev).append("\"}");
    int n = b.length();
    if (bytes.length < n + 80) {
      bytes = new byte[2 * (n + 80)];
    }
    for (int i = 0; i < n; i++) {
      bytes[i] = (byte) b.charAt(i);
    }
    sha.update(bytes, 0, n);
    byte[] h = sha.digest();
    // the line: the hashed bytes minus their closing brace, then the hash member
    int at = n - 1;
    String tail = ",\"hash\":\"";
    for (int i = 0; i < tail.length(); i++) {
      bytes[at++] = (byte) tail.charAt(i);
    }
    char[] hex = new char[64];
    for (int i = 0; i < 32; i++) {
      hex[2 * i] = HEX[(h[i] >> 4) & 0xF];
      hex[2 * i + 1] = HEX[h[i] & 0xF];
      bytes[at++] = (byte) hex[2 * i];
      bytes[at++] = (byte) hex[2 * i + 1];
    }
    bytes[at++] = '"';
    bytes[at++] = '}';
    bytes[at++] = '\n';
    out.write(bytes, 0, at);
    prev = new String(hex);
    seq++;
  }

  private void exact(int kind, long[] r, Object x) {
    switch (kind) {
      case LineJournal.ARRIVE -> key("arrive", r, false);
      case LineJournal.MOVE -> {
        key("move", r, true);
        b.append(",\"why\":\"").append(why(r[5])).append('"');
      }
      case LineJournal.LAPSE -> key("lapse", r, true);
      case LineJournal.HELD -> {
        key("held", r, true);
        b.append(",\"ready\":").append((r[5] & LineJournal.READY) != 0);
      }
      case LineJournal.OFFER -> {
        ticket("offer", r);
        if ((r[5] & LineJournal.AWAY) != 0) {
          b.append(",\"away\":true");
        }
      }
      case LineJournal.ADMIT -> ticket("admit", r);
      case LineJournal.PRESENT -> {
        ticket("present", r);
        b.append(",\"heard\":").append(r[3]);
      }
      case LineJournal.ABSENT -> {
        ticket("absent", r);
        b.append(",\"heard\":").append(r[3]).append(",\"window\":").append(r[4]);
      }
      case LineJournal.REMOVE -> ticket("remove", r);
      case LineJournal.EXPIRE -> ticket("expire", r);
      case LineJournal.ENTER -> b.append("enter\"");
      case LineJournal.ALLOWANCE ->
          b.append("allowance\",\"value\":").append(AdmissionLog.allowance(r[3]));
      case LineJournal.CAPACITY -> b.append("capacity\",\"value\":").append(r[3]);
      case AdmissionLog.GAP -> b.append("gap\",\"lost\":").append(r[1]);
      case AdmissionLog.DRAW -> {
        b.append("draw\",\"group\":[");
        long[] g = (long[]) x;
        for (int i = 0; i < g.length; i++) {
          b.append(i == 0 ? "" : ",").append(g[i]);
        }
        b.append(']');
      }
      case AdmissionLog.NOTE -> note((String[]) x);
      default -> throw new IllegalArgumentException("unknown journal kind " + kind);
    }
  }

  private void note(String[] v) {
    switch (v[0]) {
      case "genesis" -> {
        b.append("genesis\",\"format\":\"").append(AdmissionLog.FORMAT).append("\",\"room\":");
        string(v[1]);
        b.append(",\"line\":\"").append(v[2]).append("\",\"policy\":\"fifo-bands\"");
      }
      case "close" -> b.append("close\"");
      case "mode" -> {
        b.append("mode\",\"mode\":");
        string(v[1]);
      }
      case "presale" -> {
        b.append("presale\",\"seedHash\":");
        string(v[1]);
      }
      case "reveal" -> {
        b.append("reveal\",\"seed\":");
        string(v[1]);
      }
      default -> throw new IllegalArgumentException("unknown note " + v[0]);
    }
  }

  private void observed(int kind, long[] r, byte[] salt) {
    b.append(kind == LineJournal.ARRIVE ? "arrive" : "admit").append("\",\"id\":\"");
    ids.update(salt);
    for (int k = 1; k <= 3; k += 2) {
      long v = r[k];
      for (int i = 7; i >= 0; i--) {
        ids.update((byte) (v >>> (8 * i)));
      }
    }
    byte[] d = ids.digest();
    for (int i = 0; i < 8; i++) {
      b.append(HEX[(d[i] >> 4) & 0xF]).append(HEX[d[i] & 0xF]);
    }
    b.append('"');
    if (kind == LineJournal.ARRIVE) {
      b.append(",\"position\":").append(r[4]);
    }
  }

  private void ticket(String kind, long[] r) {
    b.append(kind).append("\",\"n\":").append(r[1]);
  }

  private void key(String kind, long[] r, boolean away) {
    ticket(kind, r);
    b.append(",\"band\":").append(r[2]).append(",\"place\":").append(r[3]);
    b.append(",\"order\":").append(r[4]).append(",\"tied\":");
    b.append((r[5] & LineJournal.TIED) != 0);
    if (away) {
      b.append(",\"away\":").append((r[5] & LineJournal.AWAY) != 0);
    }
  }

  static String why(long flags) {
    long w = flags & LineJournal.WHY_MASK;
    if (w == LineJournal.WHY_PROMOTE) {
      return "promote";
    } else if (w == LineJournal.WHY_RANK) {
      return "rank";
    } else if (w == LineJournal.WHY_DRAW) {
      return "draw";
    }
    return "tie";
  }

  /** A JSON string, every char outside printable ASCII escaped, so a line is its bytes. */
  private void string(String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7E) {
        b.append("\\u")
            .append(HEX[(c >> 12) & 0xF])
            .append(HEX[(c >> 8) & 0xF])
            .append(HEX[(c >> 4) & 0xF])
            .append(HEX[c & 0xF]);
      } else {
        b.append(c);
      }
    }
    b.append('"');
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
