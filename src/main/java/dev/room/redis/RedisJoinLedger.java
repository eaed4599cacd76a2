package dev.room.redis;

import dev.room.spi.JoinLedger;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The join ledger of a {@link RedisLine}, so every instance of the room shares the join limits, the
 * spent challenges and the signing secret. Keys sit in the room's hash tag, next to the line's:
 *
 * <pre>
 *   joins:&lt;window&gt;:&lt;client key&gt;  string  joins by that key in that minute (INCR)
 *   spent:&lt;challenge&gt;               string  a spent proof-of-work challenge (SET NX)
 *   altcha                           string  the secret challenges are signed with (hex)
 * </pre>
 *
 * <p>Windows are numbered by the callers' clocks and passed in, so Redis's own clock decides no
 * limit: a key's TTL (the time left to its {@code forgetAfter}, taken on the caller's clock) only
 * frees memory, and a replayed challenge is refused on the salt's expiry before its key is read.
 */
final class RedisJoinLedger implements JoinLedger {
  /** Counts a join and, on the window's first, sets when Redis may forget it: one atomic step. */
  private static final String COUNT =
      "local n = redis.call('INCR', KEYS[1])\n"
          + "if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end\n"
          + "return n\n";

  /** Slack on a spent challenge's TTL, for instances whose clocks disagree a little. */
  private static final long SPENT_SLACK_MILLIS = 60_000;

  private final RedisLink link;
  private final String prefix;
  private volatile String countSha;

  RedisJoinLedger(RedisLink link, RoomKeys keys) {
    this.link = link;
    this.prefix = keys.prefix();
  }

  @Override
  public long countJoin(String key, long window, long forgetAfter, long now) {
    String[] keys = {prefix + "joins:" + window + ":" + key};
    String ttl = Long.toString(Math.max(1, forgetAfter - now));
    Long n =
        link.call(
            c -> {
              String sha = countSha;
              if (sha != null) {
                try {
                  return c.<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, ttl);
                } catch (RedisNoScriptException e) {
                  // flushed or restarted: load it again below
                }
              }
              countSha = c.scriptLoad(COUNT);
              return c.<Long>evalsha(countSha, ScriptOutputType.INTEGER, keys, ttl);
            });
    return n == null ? 0 : n;
  }

  @Override
  public boolean spend(String id, long expiresAt, long now) {
    long ttl = Math.max(1, expiresAt - now) + SPENT_SLACK_MILLIS;
    String ok = link.call(c -> c.set(prefix + "spent:" + id, "1", SetArgs.Builder.nx().px(ttl)));
    return "OK".equals(ok);
  }

  @Override
  public byte[] secret() {
    String key = prefix + "altcha";
    byte[] fresh = new byte[32];
    new SecureRandom().nextBytes(fresh);
    String hex = HexFormat.of().formatHex(fresh);
    String kept =
        link.call(
            c -> {
              c.set(key, hex, SetArgs.Builder.nx()); // the first instance's secret stays
              return c.get(key);
            });
    if (kept == null) {
      throw new IllegalStateException("Redis lost the room's challenge secret at " + key);
    }
    return HexFormat.of().parseHex(kept);
  }
}
