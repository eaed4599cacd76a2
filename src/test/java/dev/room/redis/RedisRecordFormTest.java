package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stored forms a batched poll relies on (lib/record.lua): tie groups scored in {@code heads},
 * records with their poll fields at fixed offsets, and rooms written before either.
 */
class RedisRecordFormTest {
  private static final Policy POLICY = new Policy(300_000, 0, 1000, 100_000, 60_000, 0);
  private static final String PREFIX = "{room:form}:";

  private final FakeClock clock = new FakeClock();
  @RegisterExtension final RawRedis redis = new RawRedis("form", clock);

  private long[] arrive(RedisLine l, String key) {
    long[] t = Tokens.generate();
    l.arrive(t[0], t[1], key, false, clock.millis(), POLICY);
    return t;
  }

  private long position(RedisLine l, long[] t) {
    long o = l.poll(t[0], t[1], clock.millis(), POLICY);
    assertEquals(Outcome.WAITING, Outcome.kind(o));
    return Outcome.position(o);
  }

  /** The record's bytes 1 and 4 (the array's and field 1's MessagePack types) and its LAST. */
  private List<Object> form(long[] t) {
    return onRecord(
        "local r = redis.call('HGET', KEYS[1], ARGV[1])"
            + " return {string.byte(r, 1), string.byte(r, 4), cmsgpack.unpack(r)[7]}",
        ScriptOutputType.MULTI,
        t);
  }

  /** Runs {@code lua} with the room's record hash as KEYS[1] and ticket {@code t}'s token. */
  private <T> T onRecord(String lua, ScriptOutputType type, long[] t) {
    return redis.sync().eval(lua, type, new String[] {PREFIX + "tk"}, Tokens.format(t[0], t[1]));
  }

  @Test
  void aRecordWrittenBeforeTheFixedFormIsPolledAsBeforeAndRewrittenInIt() {
    try (RedisLine l = redis.line()) {
      l.beat();
      l.setCapacity(0, clock.millis());
      long[] a = arrive(l, "");
      long[] b = arrive(l, "k".repeat(40));
      assertEquals(List.of(0xdcL, 0xd3L, clock.millis()), form(b), "written in the fixed form");
      assertEquals(2, position(l, b));
      // As an older version wrote it: cmsgpack's own encoding, smallest integer types.
      for (long[] t : List.of(a, b)) {
        onRecord(
            "redis.call('HSET', KEYS[1], ARGV[1],"
                + " cmsgpack.pack(cmsgpack.unpack(redis.call('HGET', KEYS[1], ARGV[1]))))",
            ScriptOutputType.STATUS,
            t);
      }
      assertTrue((Long) form(b).get(1) != 0xd3L, "rewritten as before");
      clock.advanceMillis(2000);
      assertEquals(1, position(l, a));
      assertEquals(2, position(l, b));
      assertEquals(List.of(0xdcL, 0xd3L, clock.millis()), form(b), "rewritten in the fixed form");
      clock.advanceMillis(2000);
      assertEquals(2, position(l, b));
      assertEquals(clock.millis(), form(b).get(2), "a poll in the fixed form stamps LAST");
      l.checkInvariants();
    }
  }

  @Test
  void aRoomWhoseGroupsWereAllScoredZeroIsScoredWhenAnInstanceRegisters() {
    try (RedisLine old = redis.line()) {
      old.beat();
      old.setCapacity(0, clock.millis());
      long[] a = arrive(old, "");
      long[] b = arrive(old, "");
      long[] c = arrive(old, "");
      old.promote(c[0], c[1], 1); // tied with a: two groups
      // As a version before scored groups left it: every group at score 0, no marker.
      for (String g : redis.sync().zrange(PREFIX + "heads", 0, -1)) {
        redis.sync().zadd(PREFIX + "heads", 0, g);
      }
      redis.sync().hdel(PREFIX + "meta", "hs");
      assertThrows(IllegalStateException.class, old::checkInvariants, "unscored groups are seen");
      try (RedisLine upgraded = redis.line()) {
        upgraded.beat(); // registers: the first instance that scores groups
        for (ScoredValue<String> g : redis.sync().zrangeWithScores(PREFIX + "heads", 0, -1)) {
          assertTrue(g.getScore() > 0, "scored");
        }
        long[] d = arrive(upgraded, "");
        assertEquals(1, position(upgraded, c));
        assertEquals(1, position(upgraded, a));
        assertEquals(2, position(upgraded, b));
        assertEquals(3, position(upgraded, d));
        upgraded.checkInvariants();
      }
    }
  }

  @Test
  void aGroupsScoreNeverDecreasesAlongTheLineOrder() throws IOException {
    // headScore over every edge of its ranges, against the members' own (lexicographic) order:
    // scores must never decrease along it, and differ wherever both groups are in range.
    StringBuilder lua = new StringBuilder();
    for (String piece : List.of("lib/keys.lua", "lib/record.lua")) {
      try (InputStream in = LuaScripts.class.getResourceAsStream(piece)) {
        lua.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    lua.append(
        """
        local bands = {MAXBAND, MAXBAND - 1, 1048576, 1048575, 1048574, 1048573, 5, 1, 0, -1,
          -2}
        local places = {0, 1, 2, 4294967293, 4294967294, 4294967295, 4294967296, 1099511627776,
          9007199254740991, -1, -5}
        local gs = {}
        for _, b in ipairs(bands) do
          for _, p in ipairs(places) do
            gs[#gs + 1] = {group(b, p), headScore(b, p), b >= 0 and b < 1048575 and p >= 0
              and p < 4294967295}
          end
        end
        table.sort(gs, function(x, y) return x[1] < y[1] end)
        local bad = {}
        for i = 2, #gs do
          if gs[i][2] < gs[i - 1][2] or (gs[i][3] and gs[i - 1][3] and gs[i][2] == gs[i - 1][2])
              or gs[i][2] ~= groupScore(gs[i][1]) then
            bad[#bad + 1] = gs[i - 1][1] .. ' ' .. gs[i][1]
          end
        end
        for _, g in ipairs(gs) do
          redis.call('ZADD', 'scored', int(g[2]), g[1])
        end
        local order = redis.call('ZRANGE', 'scored', 0, -1)
        for i = 1, #gs do
          if order[i] ~= gs[i][1] then
            bad[#bad + 1] = 'rank ' .. i .. ': ' .. order[i] .. ' ~= ' .. gs[i][1]
          end
        end
        return bad
        """);
    List<Object> bad = redis.sync().eval(lua.toString(), ScriptOutputType.MULTI, new String[0]);
    assertEquals(List.of(), bad);
  }
}
