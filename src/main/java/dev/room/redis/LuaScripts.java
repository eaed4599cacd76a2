package dev.room.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.Map;

/**
 * The line's Lua scripts, read once from {@code line.lua}: each {@code --- script: name} section
 * with the file's common part prepended, and its SHA-1 for EVALSHA.
 */
final class LuaScripts {
  /** The scripts, one per state transition or read. */
  enum Op {
    ENTER,
    EXIT,
    ARRIVE,
    POLL,
    CLAIM,
    REMOVE,
    PROMOTE,
    RANK,
    EVICT,
    CAPACITY,
    ALLOWANCE,
    DRAW,
    COUNTERS,
    REGISTER,
    HEARTBEAT,
    LEAVE,
    RESUME,
    SCAN,
    TICKET,
    STAGE,
    STAGEPASSES,
    COMMIT,
    ABORT,
    PASS,
    CHECK
  }

  private static final String MARKER = "\n--- script: ";

  private final Map<Op, String> sources = new EnumMap<>(Op.class);
  private final Map<Op, String> shas = new EnumMap<>(Op.class);

  LuaScripts() {
    String file = read();
    String[] parts = file.split(MARKER);
    String common = parts[0];
    for (int i = 1; i < parts.length; i++) {
      int eol = parts[i].indexOf('\n');
      Op op = Op.valueOf(parts[i].substring(0, eol).strip().toUpperCase(java.util.Locale.ROOT));
      String source = common + "\n" + parts[i].substring(eol + 1);
      sources.put(op, source);
      shas.put(op, sha1(source));
    }
    for (Op op : Op.values()) {
      if (!sources.containsKey(op)) {
        throw new IllegalStateException("line.lua has no script " + op);
      }
    }
  }

  String source(Op op) {
    return sources.get(op);
  }

  String sha(Op op) {
    return shas.get(op);
  }

  private static String read() {
    try (InputStream in = LuaScripts.class.getResourceAsStream("line.lua")) {
      if (in == null) {
        throw new IllegalStateException("dev/room/redis/line.lua is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8));
      StringBuilder b = new StringBuilder(40);
      for (byte x : d) {
        b.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
      }
      return b.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JVM", e);
    }
  }
}
