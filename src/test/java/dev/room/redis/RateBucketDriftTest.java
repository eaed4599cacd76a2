package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.engine.AdmissionPacer;
import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admission-rate bucket's rule written twice ({@code engine/RateBucket} with the serving
 * window; {@code redis/lib/bucket.lua} with {@code ops/allowance.lua}), run side by side: one
 * seeded random walk of rate settings, refills on clocks ahead and behind, holds, allowances set
 * outright, fast-path entries, exits, arrivals, polls, claims and reaper passes, applied to an
 * {@link InMemoryLine} and a {@link RedisLine} at once. After every step both answered alike (the
 * next accrual time a refill returns included, to the millisecond) and hold the same counters.
 */
class RateBucketDriftTest {
  private static final int STEPS = 300;
  private static final double[] RATES = {0.5, 1, 1.0 / 3, 2.5, 3, 7.25, 40};
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  @ParameterizedTest
  @ValueSource(longs = {5, 17, 2026})
  void theEngineAndTheScriptsMeterAlike(long seed) {
    Random rnd = new Random(seed);
    FakeClock clock = new FakeClock();
    Policy p = new Policy(3_600_000, 0, 1000, 100_000, 5_000, 0);
    int capacity = 2 + rnd.nextInt(4);
    InMemoryLine a = new InMemoryLine(capacity);
    RedisLine b =
        RedisLine.builder(redis.uri(), "bucket-drift-" + UUID.randomUUID())
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .manualHeartbeat() // one beat a step: the clock jumps, the lease must not lapse
            .build();
    b.setCapacity(capacity, clock.millis());
    List<long[]> tokens = new ArrayList<>();
    int inFlight = 0;
    // The walk reached the rule: refills of a metered line (their next accrual times compared to
    // the millisecond), and refills that admitted more (the allowance, or a hand-over)
    int metered = 0;
    int refilled = 0;
    try {
      for (int step = 0; step < STEPS; step++) {
        clock.advanceMillis(
            rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(rnd.nextInt(8) == 0 ? 5000 : 300));
        long now = clock.millis();
        b.beat();
        int op = rnd.nextInt(100);
        String what;
        Function<Line, Object> call;
        if (op < 10) {
          double rate = rnd.nextInt(8) == 0 ? 0 : RATES[rnd.nextInt(RATES.length)];
          long burst = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(5) : AdmissionPacer.burst(rate);
          what = "meter " + rate + " burst " + burst;
          call = l -> "next " + l.meter(rate, burst, now);
        } else if (op < 40) {
          long at = rnd.nextInt(4) == 0 ? now - rnd.nextInt(3000) : now;
          what = "refill at " + (at - now);
          call = l -> "next " + l.refill(at);
        } else if (op < 43) {
          boolean held = rnd.nextInt(3) == 0;
          what = "hold " + held;
          call =
              l -> {
                l.hold(held, now);
                return null;
              };
        } else if (op < 44) {
          long allowance = rnd.nextInt(3) == 0 ? Line.UNLIMITED : rnd.nextInt(3);
          what = "allowance " + allowance;
          call =
              l -> {
                l.setAllowance(allowance, now);
                return null;
              };
        } else if (op < 45) {
          long n = rnd.nextInt(3);
          what = "add allowance " + n;
          call =
              l -> {
                l.addAllowance(n, 4, now);
                return null;
              };
        } else if (op < 68) {
          what = "fast path";
          call = Line::tryEnter;
        } else if (op < 82 && inFlight > 0) {
          what = "exit";
          call =
              l -> {
                l.exit(now);
                return null;
              };
          inFlight--;
        } else if (op < 85) {
          long[] t = Tokens.generate();
          tokens.add(t);
          what = "arrive";
          call = l -> l.arrive(t[0], t[1], "k", false, now, p);
        } else if (op < 95 && !tokens.isEmpty()) {
          long[] t = tokens.get(rnd.nextInt(tokens.size()));
          boolean claim = rnd.nextInt(4) != 0;
          what = claim ? "claim" : "poll";
          call = l -> claim ? l.claim(t[0], t[1], now, p) : l.poll(t[0], t[1], now, p);
        } else {
          what = "evict";
          call = l -> l.evict(now, p);
        }
        String at = "seed " + seed + ", step " + step + ": " + what;
        String before = state(a);
        String answer = answer(a, call);
        assertEquals(answer, answer(b, call), at);
        if (answer.equals("true") && what.equals("fast path")
            || answer.startsWith("kind " + Outcome.ADMITTED)) {
          inFlight++;
        }
        assertEquals(state(a), state(b), at + " (the line after it)");
        if (what.startsWith("refill") && !answer.equals("next " + Long.MAX_VALUE)) {
          metered++;
          refilled += state(a).equals(before) ? 0 : 1;
        }
        b.checkInvariants();
        a.checkInvariants();
      }
      assertTrue(
          metered >= 30 && refilled >= 3, metered + " metered refills, " + refilled + " added");
    } finally {
      b.close();
    }
  }

  private static String answer(Line l, Function<Line, Object> call) {
    try {
      Object o = call.apply(l);
      if (o instanceof Long outcome) {
        return "kind "
            + Outcome.kind(outcome)
            + " at "
            + Outcome.position(outcome)
            + " flags "
            + Long.toHexString(outcome >>> 48);
      }
      if (o instanceof int[] counts) {
        return Arrays.toString(counts);
      }
      return String.valueOf(o);
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName();
    }
  }

  private static String state(Line l) {
    long waiting = l.waiting(); // first: the Redis line's other counters are as of this reply
    return "allowance "
        + l.allowance()
        + ", waiting "
        + waiting
        + ", ready "
        + l.ready()
        + ", in flight "
        + l.inFlight()
        + ", free "
        + l.freeSlots();
  }
}
