package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineUnavailableException;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Batched status polls ({@link PollBatch}, {@code ops/polls.lua}): polls of every kind in one
 * script answer as each would alone, and concurrent polls through one line get exact positions.
 */
class RedisPollBatchTest {
  private static final Policy POLICY = new Policy(300_000, 0, 1_000, 100_000, 60_000, 0);
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  private static RedisLine line(FakeClock clock, boolean batch) {
    return line(clock, batch, "batch-" + UUID.randomUUID());
  }

  private static RedisLine line(FakeClock clock, boolean batch, String room) {
    return line(redis.uri(), clock, batch, room, 2);
  }

  /** A line on {@code room} with a lease no test outlives and the given capacity. */
  static RedisLine line(String uri, FakeClock clock, boolean batch, String room, int capacity) {
    RedisLine line =
        RedisLine.builder(uri, room)
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .batchPolls(batch)
            .build();
    line.setCapacity(capacity, clock.millis());
    return line;
  }

  /**
   * One batch holding a ready ticket, one never polled, waiting ones polled before (twice the same,
   * the second rate-limited), an unknown token and one past its TTL answers, poll by poll, what the
   * one-poll script gives on a line in the same state.
   */
  @Test
  void aBatchOfEveryKindAnswersAsOnePollAtATime() {
    long[] batched = mixedBatch(true);
    long[] single = mixedBatch(false);
    for (int i = 0; i < batched.length; i++) {
      assertEquals(single[i], batched[i], "poll " + i);
    }
    assertEquals(Outcome.READY, Outcome.kind(batched[0]));
    assertTrue((batched[0] & Outcome.FIRST_READY) != 0);
    assertEquals(Outcome.WAITING, Outcome.kind(batched[3]));
    assertTrue((batched[4] & Outcome.RATE_LIMITED) != 0);
    assertTrue((batched[5] & Outcome.EVICTED) != 0);
    assertEquals(Outcome.UNKNOWN, Outcome.kind(batched[6]));
  }

  /** Cookies refreshed every 100 s, so a batch can hold a poll whose cookies are due. */
  private static final Policy REFRESHING = new Policy(300_000, 0, 1_000, 100_000, 60_000, 0);

  /**
   * The batch writes a polled record back by splicing the fields a poll changes into the old
   * record's bytes (only LAST and LASTPOLL on a steady poll, LAST to RESEND otherwise): the records
   * it leaves are byte for byte those the one-poll script leaves, for a steady poll, the same
   * token's rate-limited second poll in the batch, a poll whose cookies are due, a first poll and
   * the page's poll after a reload (which marks the ticket reloaded, POLLED = 2).
   */
  @Test
  void aBatchWritesTheRecordsOnePollAtATimeWrites() {
    assertEquals(polledRecords(false), polledRecords(true));
  }

  private static Map<String, String> polledRecords(boolean batch) {
    FakeClock clock = new FakeClock();
    String room = "records-" + UUID.randomUUID();
    try (RedisLine line = line(clock, batch, room)) {
      assertTrue(line.tryEnter());
      assertTrue(line.tryEnter());
      line.arrive(1, 1, "", false, clock.millis(), REFRESHING);
      line.poll(1, 1, clock.millis(), REFRESHING);
      clock.advance(Duration.ofSeconds(60));
      line.arrive(2, 2, "", false, clock.millis(), REFRESHING);
      line.arrive(3, 3, "", false, clock.millis(), REFRESHING);
      line.arrive(4, 4, "", false, clock.millis(), REFRESHING);
      line.poll(2, 2, clock.millis(), REFRESHING);
      line.claim(4, 4, clock.millis(), REFRESHING); // a reload: the next poll is the page's own
      clock.advance(Duration.ofSeconds(50));
      long later = clock.millis();
      // cookies due (110 s since 1's); steady; the same, rate-limited; a first poll; a poll
      // after a reload
      long[] out = pollAll(line, room, batch, REFRESHING, later, 1, 2, 2, 3, 4);
      assertTrue((out[0] & Outcome.REFRESH_COOKIES) != 0, "cookies of 1 due");
      assertTrue((out[1] & Outcome.REFRESH_COOKIES) == 0, "cookies of 2 not due");
      assertTrue((out[2] & Outcome.RATE_LIMITED) != 0, "second poll of 2 rate-limited");
      line.checkInvariants();
      return records(room);
    }
  }

  /** The room's ticket records, token to the record's bytes in hex. */
  private static Map<String, String> records(String room) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE)) {
      Map<String, String> out = new TreeMap<>();
      byte[] tk = new RoomKeys(room).all()[1].getBytes(StandardCharsets.UTF_8);
      c.sync()
          .hgetall(tk)
          .forEach(
              (k, v) ->
                  out.put(new String(k, StandardCharsets.UTF_8), HexFormat.of().formatHex(v)));
      assertEquals(4, out.size());
      return out;
    } finally {
      client.shutdown();
    }
  }

  /** Sets up the same line either way, then polls it with one POLLS script or one POLL each. */
  private static long[] mixedBatch(boolean batch) {
    FakeClock clock = new FakeClock();
    String room = "batch-" + UUID.randomUUID();
    try (RedisLine line = line(clock, batch, room)) {
      assertTrue(line.tryEnter());
      assertTrue(line.tryEnter());
      long now = clock.millis();
      for (long i = 1; i <= 5; i++) {
        line.arrive(i, i, "", false, now, POLICY);
      }
      line.exit(now); // the freed slot is offered to the first in line
      line.poll(3, 3, now, POLICY);
      line.poll(4, 4, now, POLICY);
      line.poll(5, 5, now - 400_000, POLICY); // heard from last beyond the TTL
      clock.advance(Duration.ofSeconds(5));
      long later = clock.millis();
      // ready and never told; never polled; polled 5 s ago; polled 5 s ago, and again in the
      // same batch (rate-limited); past its TTL; unknown
      long[] out = pollAll(line, room, batch, POLICY, later, 1, 2, 3, 4, 4, 5, 9);
      line.checkInvariants();
      return out;
    }
  }

  /**
   * Polls the tokens of {@code ids} (token {@code id, id}) at {@code now}: in one POLLS script when
   * {@code batch}, else one POLL each through {@code line}.
   */
  private static long[] pollAll(
      RedisLine line, String room, boolean batch, Policy policy, long now, long... ids) {
    long[] out = new long[ids.length];
    if (batch) {
      String[] tokens = new String[ids.length];
      for (int i = 0; i < ids.length; i++) {
        tokens[i] = Tokens.format(ids[i], ids[i]);
      }
      List<Object> r = eval(room, Op.POLLS, batchArgs(policy, tokens, now));
      for (int i = 0; i < ids.length; i++) {
        out[i] = Replies.outcome(r, 3 * i);
      }
    } else {
      for (int i = 0; i < ids.length; i++) {
        out[i] = line.poll(ids[i], ids[i], now, policy);
      }
    }
    return out;
  }

  private static List<Object> eval(String room, Op op, String[] args) {
    LuaScripts scripts = new LuaScripts();
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return c.sync()
          .eval(scripts.source(op), ScriptOutputType.MULTI, new RoomKeys(room).all(), args);
    } finally {
      client.shutdown();
    }
  }

  /** A first-poll grace of 30 s: the batch's never-polled tickets are within it or past it. */
  private static final Policy GRACED = new Policy(300_000, 30_000, 1_000, 100_000, 60_000, 0);

  /**
   * Regression (issue 16): a page's first poll (never seen, within its grace) went to pollTicket,
   * after the library's set-up, at several times a seen poll's cost, and in a benchmark that polls
   * a million tickets almost every poll is a first one. The head alone, with the library replaced
   * by an error, answers such polls (a token twice: the second sees the first) and marks them seen.
   */
  @Test
  void aFirstPollIsAnsweredBeforeTheLibrary() throws IOException {
    FakeClock clock = new FakeClock();
    String room = "batch-" + UUID.randomUUID();
    try (RedisLine line = line(clock, true, room)) {
      assertTrue(line.tryEnter());
      assertTrue(line.tryEnter());
      long now = clock.millis();
      for (long i = 1; i <= 3; i++) {
        line.arrive(i, i, "", false, now, GRACED);
      }
      String head;
      try (InputStream in = LuaScripts.class.getResourceAsStream("ops/polls.lua")) {
        String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        head = body.substring(0, body.indexOf(LuaScripts.LIBRARY_MARKER));
      }
      long later = now + 5_000;
      String[] tokens = {Tokens.format(2, 2), Tokens.format(3, 3), Tokens.format(2, 2)};
      List<Object> r =
          evalSource(
              room,
              head + "error('a first poll reached the library')\n",
              batchArgs(GRACED, tokens, later));
      long[] out = {Replies.outcome(r, 0), Replies.outcome(r, 3), Replies.outcome(r, 6)};
      assertEquals(Outcome.WAITING, Outcome.kind(out[0]));
      assertEquals(2, Outcome.position(out[0]));
      assertEquals(3, Outcome.position(out[1]));
      assertEquals(2, Outcome.position(out[2]));
      assertEquals(0, out[0] & Outcome.RATE_LIMITED);
      assertTrue((out[2] & Outcome.RATE_LIMITED) != 0, "the second poll sees the first's");
      // seen now: past the grace they wait on; ticket 1, never polled, is evicted by it
      clock.advance(Duration.ofSeconds(40));
      long after = clock.millis();
      assertEquals(Outcome.WAITING, Outcome.kind(line.poll(2, 2, after, GRACED)));
      assertEquals(Outcome.WAITING, Outcome.kind(line.poll(3, 3, after, GRACED)));
      assertTrue((line.poll(1, 1, after, GRACED) & Outcome.EVICTED) != 0);
      line.checkInvariants();
    }
  }

  /**
   * Under a first-poll grace, one batch of never-polled tickets (within the grace, past it, one of
   * them twice) and a seen one answers as one poll at a time in the batch's order does, and leaves
   * the same line: the next polls, one at a time, answer alike too.
   */
  @Test
  void aBatchOfFirstPollsAnswersAsOnePollAtATime() {
    long[][] batched = firstPolls(true);
    long[][] single = firstPolls(false);
    for (int k = 0; k < batched.length; k++) {
      for (int i = 0; i < batched[k].length; i++) {
        assertEquals(single[k][i], batched[k][i], "round " + k + ", poll " + i);
      }
    }
    assertEquals(Outcome.WAITING, Outcome.kind(batched[0][0]));
    assertTrue((batched[0][1] & Outcome.RATE_LIMITED) != 0);
    assertTrue((batched[0][4] & Outcome.EVICTED) != 0, "past its grace, never polled");
  }

  private static long[][] firstPolls(boolean batch) {
    FakeClock clock = new FakeClock();
    String room = "batch-" + UUID.randomUUID();
    try (RedisLine line = line(clock, batch, room)) {
      assertTrue(line.tryEnter());
      assertTrue(line.tryEnter());
      long now = clock.millis();
      line.arrive(1, 1, "", false, now, GRACED);
      clock.advance(Duration.ofSeconds(20));
      long mid = clock.millis();
      for (long i = 2; i <= 4; i++) {
        line.arrive(i, i, "", false, mid, GRACED);
      }
      line.poll(4, 4, mid, GRACED);
      clock.advance(Duration.ofSeconds(15));
      long later = clock.millis(); // ticket 1 is 35 s old, never polled: past the grace
      // the one past its grace last: a batch answers the others first (its order, not this one's)
      long[] ids = {2, 2, 3, 4, 1};
      long[][] out = new long[2][];
      out[0] = polls(line, room, batch, ids, later);
      clock.advance(Duration.ofSeconds(40)); // every ticket is past the grace now
      out[1] = polls(line, room, false, ids, clock.millis());
      line.checkInvariants();
      return out;
    }
  }

  private static long[] polls(RedisLine line, String room, boolean batch, long[] ids, long now) {
    long[] out = new long[ids.length];
    if (batch) {
      String[] tokens = new String[ids.length];
      for (int i = 0; i < ids.length; i++) {
        tokens[i] = Tokens.format(ids[i], ids[i]);
      }
      List<Object> r = eval(room, Op.POLLS, batchArgs(GRACED, tokens, now));
      for (int i = 0; i < ids.length; i++) {
        out[i] = Replies.outcome(r, 3 * i);
      }
    } else {
      for (int i = 0; i < ids.length; i++) {
        out[i] = line.poll(ids[i], ids[i], now, GRACED);
      }
    }
    return out;
  }

  /** The polls script's arguments, from no copy of heads (every position ranked by Redis). */
  static String[] batchArgs(Policy policy, String[] tokens, long now) {
    String[] args = new String[9 + 2 * tokens.length];
    args[0] = Long.toString(policy.ttl());
    args[1] = Long.toString(policy.firstPollGrace());
    args[2] = Long.toString(policy.pollInterval());
    args[3] = Long.toString(policy.cookieRefresh());
    args[4] = Long.toString(policy.readyTimeout());
    args[5] = "-1";
    args[6] = "0";
    args[7] = "0";
    args[8] = "0";
    for (int i = 0; i < tokens.length; i++) {
      args[9 + 2 * i] = tokens[i];
      args[10 + 2 * i] = Long.toString(now);
    }
    return args;
  }

  private static List<Object> evalSource(String room, String source, String[] args) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return c.sync().eval(source, ScriptOutputType.MULTI, new RoomKeys(room).all(), args);
    } finally {
      client.shutdown();
    }
  }

  /** Many threads polling through one line: every answer is the ticket's own exact position. */
  @Test
  void concurrentPollsThroughOneLineGetExactPositions() throws Exception {
    FakeClock clock = new FakeClock();
    try (RedisLine line = line(clock, true)) {
      assertTrue(line.tryEnter());
      assertTrue(line.tryEnter()); // both slots held: everyone waits
      int n = 200;
      long now = clock.millis();
      for (long i = 1; i <= n; i++) {
        assertEquals(Outcome.WAITING, Outcome.kind(line.arrive(i, i, "", false, now, POLICY)));
      }
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < 16; w++) {
          int seed = w;
          done.add(
              pool.submit(
                  () -> {
                    for (int k = 0; k < 150; k++) {
                      long i = 1 + (seed * 37L + k * 11L) % n;
                      long o = line.poll(i, i, now + k, POLICY);
                      assertEquals(Outcome.WAITING, Outcome.kind(o));
                      assertEquals(i, Outcome.position(o), "ticket " + i);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      line.checkInvariants();
    }
  }

  /**
   * After Redis lost its scripts (a restart, a failover, SCRIPT FLUSH) a batch's EVALSHA meets
   * NOSCRIPT and goes again whole, from Lettuce's thread: every poll is answered, the script is
   * cached again.
   */
  @Test
  void aBatchAfterTheScriptsWereFlushedGoesAgainWhole() {
    FakeClock clock = new FakeClock();
    try (RedisLine line = line(clock, true)) {
      assertTrue(line.tryEnter());
      assertTrue(line.tryEnter());
      long now = clock.millis();
      for (long i = 1; i <= 3; i++) {
        assertEquals(Outcome.WAITING, Outcome.kind(line.arrive(i, i, "", false, now, POLICY)));
      }
      String sha = new LuaScripts().sha(Op.POLLS);
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        c.sync().scriptFlush();
        assertEquals(List.of(false), c.sync().scriptExists(sha));
        for (long i = 1; i <= 3; i++) {
          long o = line.poll(i, i, now + 1, POLICY);
          assertEquals(Outcome.WAITING, Outcome.kind(o));
          assertEquals(i, Outcome.position(o));
        }
        assertEquals(List.of(true), c.sync().scriptExists(sha), "loaded again");
      } finally {
        client.shutdown();
      }
    }
  }

  /**
   * Batches whose reply does not come within the command timeout (Redis paused) fail each of their
   * polls with LineUnavailableException, on each poll's own thread, and none waits longer.
   */
  @Test
  void aBatchThatTimesOutFailsEachOfItsPolls() throws Exception {
    FakeClock clock = new FakeClock();
    String room = "batch-" + UUID.randomUUID();
    RedisLine line =
        RedisLine.builder(redis.uri(), room)
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .commandTimeout(Duration.ofMillis(300))
            .build();
    RedisClient client = RedisClient.create(redis.uri());
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (line;
        StatefulRedisConnection<String, String> admin = client.connect()) {
      line.setCapacity(1, clock.millis());
      assertTrue(line.tryEnter());
      long now = clock.millis();
      for (long i = 1; i <= 8; i++) {
        assertEquals(Outcome.WAITING, Outcome.kind(line.arrive(i, i, "", false, now, POLICY)));
      }
      admin.sync().clientPause(1_500);
      try {
        List<Future<Throwable>> polls = new ArrayList<>();
        for (long i = 1; i <= 8; i++) {
          long token = i;
          polls.add(
              pool.submit(
                  () -> {
                    try {
                      line.poll(token, token, now + 1, POLICY);
                      return null;
                    } catch (RuntimeException e) {
                      return e;
                    }
                  }));
        }
        for (Future<Throwable> f : polls) {
          Throwable t = f.get(10, TimeUnit.SECONDS);
          assertTrue(t instanceof LineUnavailableException, "failed as unavailable: " + t);
        }
      } finally {
        // runs once the pause is over, if it holds this client too
        admin
            .sync()
            .dispatch(
                CommandType.CLIENT,
                new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
      }
    } finally {
      pool.shutdownNow();
      client.shutdown();
    }
  }
}
