package dev.room.audit;

import dev.room.engine.PresaleDraw;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The chain of a log being verified: every entry's {@code hash} is the SHA-256 of its bytes without
 * the hash member, its {@code seq} follows the one before, and its {@code prev} is the hash before
 * it (64 zeros for the first).
 */
final class HashChain {
  private final MessageDigest sha = EntryWriter.sha256();
  private String head = EntryWriter.ZERO;
  private long seq;

  /** The hash of the last entry linked, 64 zeros before the first. */
  String head() {
    return head;
  }

  /** Links {@code e}, parsed from {@code line}; returns null, or why it does not follow. */
  String link(String line, LogEntry e) {
    int cut = line.lastIndexOf(",\"hash\":\"");
    if (cut < 0 || !line.endsWith("\"}")) {
      return "no hash member at the end";
    }
    byte[] d = sha.digest((line.substring(0, cut) + "}").getBytes(StandardCharsets.US_ASCII));
    String hash = PresaleDraw.hex(d);
    if (!hash.equals(e.string("hash"))) {
      return "the hash does not match the entry's content: the entry was changed";
    }
    long s = e.number("seq");
    if (s != seq) {
      return "seq "
          + s
          + " where "
          + seq
          + " was expected: an entry is missing, added or out of order";
    }
    if (!e.string("prev").equals(head)) {
      return "prev is not the hash of the entry before: an entry was changed, removed or moved";
    }
    seq++;
    head = hash;
    return null;
  }
}
