package dev.room.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The line's Lua scripts, read once: each {@code ops/<op>.lua} with the shared library ({@link
 * #LIBRARY}, in that order) prepended, and its SHA-1 for EVALSHA.
 */
final class LuaScripts {
  /**
   * The scripts, one per state transition or read; each is {@code ops/<name in lower case>.lua}.
   */
  enum Op {
    ENTER,
    EXIT,
    ARRIVE,
    POLL,
    POLLS,
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
    CONTROLS,
    CHECK,
    SALT,
    // admission sessions (RedisSessionStore)
    SESSION_START,
    SESSION_GET,
    SESSION_TICKET,
    SESSION_RENEW,
    SESSION_END,
    SESSION_SWEEP,
    SESSION_GENERATION,
    // the settings the fleet holds alike (RedisFleetSettings, u3-settings)
    FLEET_SETTINGS,
    // the pre-sale and the fleet's health window (u2-sale)
    PRESALE,
    HEALTH,
    // origin (issue 16): Line.lapseAbsent
    ABSENT,
    // scale (issue 16): HeadsMirror's reads of heads
    HEADS;

    /** The op's script, relative to this package. */
    String file() {
      return "ops/" + name().toLowerCase(Locale.ROOT) + ".lua";
    }
  }

  /**
   * The library's pieces, in the order they are prepended: each is Lua locals that use only the
   * pieces before it (window's forward-declared {@code retire} is assigned in retire).
   */
  static final List<String> LIBRARY =
      List.of(
          "lib/keys.lua",
          "lib/record.lua",
          "lib/identity.lua",
          "lib/order.lua",
          "lib/window.lua",
          "lib/retire.lua",
          "lib/lease.lua",
          "lib/reply.lua",
          "lib/poll.lua",
          "lib/sessions.lua",
          "lib/draw.lua",
          "lib/bucket.lua");

  /**
   * Where an op that answers its common case without the library has it inserted instead of
   * prepended (ops/polls.lua): setting up the library's functions is most of a short script's cost.
   */
  static final String LIBRARY_MARKER = "-- @library\n";

  private final Map<Op, String> sources = new EnumMap<>(Op.class);
  private final Map<Op, String> shas = new EnumMap<>(Op.class);

  LuaScripts() {
    StringBuilder library = new StringBuilder();
    for (String piece : LIBRARY) {
      library.append(read(piece));
    }
    for (Op op : Op.values()) {
      String body = read(op.file());
      int at = body.indexOf(LIBRARY_MARKER);
      String source =
          at < 0
              ? library + body
              : body.substring(0, at) + library + body.substring(at + LIBRARY_MARKER.length());
      sources.put(op, source);
      shas.put(op, sha1(source));
    }
  }

  String source(Op op) {
    return sources.get(op);
  }

  String sha(Op op) {
    return shas.get(op);
  }

  private static String read(String name) {
    try (InputStream in = LuaScripts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("dev/room/redis/" + name + " is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String sha1(String s) {
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
