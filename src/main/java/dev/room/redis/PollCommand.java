package dev.room.redis;

import dev.room.spi.Policy;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The {@code ops/polls.lua} call of one batch, built from bytes made once: the script's SHA (and
 * source), the room's 18 keys once per line, the policy's five arguments once per policy, each
 * token's hex once per poll (from its two longs, no {@code String}), and each time written as a
 * number. Lettuce's own EVALSHA of {@code String}s encoded every key and argument again for every
 * batch and decoded the reply into a list of boxed longs; here the reply is read into a {@code
 * long[]}. The arguments are those {@code RedisClusterCommands.evalsha(sha, MULTI, keys, args)}
 * sends.
 */
final class PollCommand {
  /** A poll as the script takes it: the token's hex and the time of the poll. */
  interface Poll {
    byte[] token();

    long now();
  }

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final byte[] sha;
  private final byte[] source;
  private final byte[][] keys;
  private volatile Encoded policy; // the last policy's arguments, encoded

  PollCommand(String sha, String source, String[] keys) {
    this.sha = sha.getBytes(StandardCharsets.US_ASCII);
    this.source = source.getBytes(StandardCharsets.UTF_8);
    this.keys = new byte[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      this.keys[i] = keys[i].getBytes(StandardCharsets.UTF_8);
    }
  }

  /** A token as {@code Tokens.format} spells it, in ASCII. */
  static byte[] token(long hi, long lo) {
    byte[] b = new byte[32];
    for (int i = 15; i >= 0; i--) {
      b[i] = HEX[(int) (hi & 0xF)];
      hi >>>= 4;
      b[i + 16] = HEX[(int) (lo & 0xF)];
      lo >>>= 4;
    }
    return b;
  }

  /**
   * The command for the first {@code n} polls of {@code batch}, all under {@code policy}, from a
   * copy of heads at {@code since}: EVALSHA, or EVAL with the whole script when {@code whole}.
   */
  RedisCommand<byte[], byte[], long[]> command(
      boolean whole, Policy policy, HeadsMirror.Since since, Poll[] batch, int n) {
    CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE);
    args.add(whole ? source : sha).add(keys.length).addKeys(keys);
    for (byte[] a : policyArgs(policy)) {
      args.add(a);
    }
    args.add(since.seq()).add(since.epoch()).add(since.gen()).add(since.check() ? "1" : "0");
    for (int i = 0; i < n; i++) {
      args.add(batch[i].token()).add(batch[i].now());
    }
    return new Command<>(whole ? CommandType.EVAL : CommandType.EVALSHA, new Longs(), args);
  }

  private byte[][] policyArgs(Policy p) {
    Encoded e = policy;
    if (e == null || !e.policy.equals(p)) {
      long[] v = {
        p.ttl(), p.firstPollGrace(), p.pollInterval(), p.cookieRefresh(), p.readyTimeout()
      };
      byte[][] bytes = new byte[v.length][];
      for (int i = 0; i < v.length; i++) {
        bytes[i] = Long.toString(v[i]).getBytes(StandardCharsets.US_ASCII);
      }
      e = new Encoded(p, bytes);
      policy = e;
    }
    return e.args;
  }

  private record Encoded(Policy policy, byte[][] args) {}

  /**
   * The script's flat array of integers as a {@code long[]}; anything else it might hold makes the
   * command fail, as a reply {@code Replies} cannot read would.
   */
  static final class Longs extends CommandOutput<byte[], byte[], long[]> {
    private int size;

    Longs() {
      super(ByteArrayCodec.INSTANCE, null);
    }

    @Override
    public void multi(int count) {
      if (output == null) {
        output = new long[Math.max(count, 0)];
      } else {
        unexpected(); // a nested array
      }
    }

    @Override
    public void set(long v) {
      if (output == null || size >= output.length) {
        unexpected();
        return;
      }
      output[size++] = v;
    }

    @Override
    public void set(ByteBuffer bytes) {
      unexpected();
    }

    @Override
    public void set(double number) {
      unexpected();
    }

    @Override
    public void set(boolean value) {
      unexpected();
    }

    private void unexpected() {
      if (error == null) {
        setError("the polls script's reply is not a flat array of integers");
      }
    }
  }
}
