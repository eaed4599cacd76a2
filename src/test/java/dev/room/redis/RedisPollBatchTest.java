package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Batched status polls ({@link PollBatch}, {@code ops/polls.lua}): polls of every kind in one
 * script answer as each would alone, and concurrent polls through one line get exact positions.
 */
class RedisPollBatchTest {
  private static final Policy POLICY = new Policy(300_000, 0, 1_000, 100_000, 60_000, 0);
  private static RedisServer redis;

  @BeforeAll
  static void startRedis() throws IOException {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() throws IOException {
    if (redis != null) {
      redis.close();
    }
  }

  private static RedisLine line(FakeClock clock, boolean batch) {
    return line(clock, batch, "batch-" + UUID.randomUUID());
  }

  private static RedisLine line(FakeClock clock, boolean batch, String room) {
    RedisLine line =
        RedisLine.builder(redis.uri(), room)
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .batchPolls(batch)
            .build();
    line.setCapacity(2, clock.millis());
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
      long[] ids = {1, 2, 3, 4, 4, 5, 9};
      String[] tokens = new String[ids.length];
      for (int i = 0; i < ids.length; i++) {
        tokens[i] = Tokens.format(ids[i], ids[i]);
      }
      long[] out = new long[tokens.length];
      if (batch) {
        String[] args = new String[5 + 2 * tokens.length];
        args[0] = Long.toString(POLICY.ttl());
        args[1] = Long.toString(POLICY.firstPollGrace());
        args[2] = Long.toString(POLICY.pollInterval());
        args[3] = Long.toString(POLICY.cookieRefresh());
        args[4] = Long.toString(POLICY.readyTimeout());
        for (int i = 0; i < tokens.length; i++) {
          args[5 + 2 * i] = tokens[i];
          args[6 + 2 * i] = Long.toString(later);
        }
        List<Object> r = eval(room, Op.POLLS, args);
        for (int i = 0; i < tokens.length; i++) {
          out[i] = Replies.outcome(r, 3 * i);
        }
      } else {
        for (int i = 0; i < tokens.length; i++) {
          out[i] = line.poll(ids[i], ids[i], later, POLICY);
        }
      }
      line.checkInvariants();
      return out;
    }
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
}
