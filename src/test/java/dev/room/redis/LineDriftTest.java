package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.room.FakeClock;
import dev.room.TicketInfo;
import dev.room.engine.InMemoryLine;
import dev.room.spi.LedgerLine;
import dev.room.spi.Line;
import dev.room.spi.Move;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rules written twice, run side by side: one seeded random walk of arrivals (some with a pass),
 * polls, claims, exits, fast-path entries, removals, promotions, quotes, ranks, reaper passes,
 * capacity and allowance changes and clock jumps, applied to an {@link InMemoryLine} and a {@link
 * RedisLine} at once. After every step both must have answered alike (the whole outcome: kind,
 * position and flags) and hold the same line, and both ledgers balance. The model test in {@code
 * LineContractTest} checks each line against a model of the moves; this one reaches where that
 * model does not (time, offers and their lapse, the reaper, the allowance, the queue depth).
 */
class LineDriftTest {
  private static final int STEPS = 300;
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  @ParameterizedTest
  @ValueSource(longs = {3, 11, 42, 1009, 65537, 271828})
  void theEngineAndTheScriptsAgreeStepByStep(long seed) {
    Random rnd = new Random(seed);
    FakeClock clock = new FakeClock();
    int capacity = 1 + rnd.nextInt(3);
    Policy p =
        new Policy(
            60_000,
            rnd.nextBoolean() ? 0 : 20_000,
            1000,
            5_000,
            15_000,
            rnd.nextBoolean() ? 0 : 12);
    // Heartbeats by hand, one a step: the clock jumps, the lease must not lapse between beats.
    RedisLine redisLine =
        RedisLine.builder(redis.uri(), "drift-" + UUID.randomUUID())
            .clock(clock)
            .leaseTtl(Duration.ofMinutes(10))
            .manualHeartbeat()
            .build();
    redisLine.setCapacity(capacity, clock.millis());
    LedgerLine a = new LedgerLine(new InMemoryLine(capacity));
    LedgerLine b = new LedgerLine(redisLine);
    List<Long> ids = new ArrayList<>();
    int inFlight = 0;
    try {
      for (int step = 0; step < STEPS; step++) {
        clock.advanceMillis(rnd.nextInt(10) == 0 ? rnd.nextInt(40_000) : rnd.nextInt(800));
        long now = clock.millis();
        redisLine.beat();
        int op = rnd.nextInt(100);
        long id = ids.isEmpty() || op < 25 ? ids.size() + 1 : ids.get(rnd.nextInt(ids.size()));
        String what;
        Function<Line, Object> call;
        if (op < 25) {
          ids.add(id);
          boolean pass = rnd.nextInt(8) == 0;
          what = "arrive " + id + (pass ? " with a pass" : "");
          call = l -> l.arrive(id, id, "k" + id, pass, now, p);
        } else if (op < 45) {
          what = "poll " + id;
          call = l -> l.poll(id, id, now, p);
        } else if (op < 55) {
          what = "claim " + id;
          call = l -> l.claim(id, id, now, p);
        } else if (op < 65 && inFlight > 0) {
          what = "exit";
          call =
              l -> {
                l.exit(now);
                return null;
              };
          inFlight--;
        } else if (op < 68) {
          what = "fast path";
          call = Line::tryEnter;
        } else if (op < 72) {
          what = "remove " + id;
          call = l -> l.remove(id, id, now);
        } else if (op < 80) {
          long target = 1 + rnd.nextInt(5);
          boolean really = rnd.nextBoolean();
          what = (really ? "promote " : "quote ") + id + " to " + target;
          call = l -> really ? l.promote(id, id, target) : l.quote(id, id, target);
        } else if (op < 86) {
          int rank = rnd.nextInt(4);
          what = "rank " + id + " " + rank;
          call = l -> l.rank(id, id, rank);
        } else if (op < 91) {
          what = "evict";
          call = l -> l.evict(now, p);
        } else if (op < 94) {
          int c = 1 + rnd.nextInt(4);
          what = "capacity " + c;
          call =
              l -> {
                l.setCapacity(c, now);
                return null;
              };
        } else if (op < 97) {
          long allowance = rnd.nextInt(3) == 0 ? Line.UNLIMITED : rnd.nextInt(3);
          what = "allowance " + allowance;
          call =
              l -> {
                l.setAllowance(allowance, now);
                return null;
              };
        } else {
          long n = rnd.nextInt(3);
          what = "add allowance " + n;
          call =
              l -> {
                l.addAllowance(n, 5, now);
                return null;
              };
        }
        String at = "seed " + seed + ", step " + step + ": " + what;
        String answer = answer(a, call);
        assertEquals(answer, answer(b, call), at);
        if (answer.equals("true") && what.equals("fast path")
            || answer.startsWith("kind " + Outcome.ADMITTED)) {
          inFlight++;
        }
        assertEquals(state(a), state(b), at + " (the line after it)");
        redisLine.checkInvariants();
        ((InMemoryLine) a.delegate()).checkInvariants();
        a.checkLedger();
        b.checkLedger();
      }
    } finally {
      redisLine.close();
    }
  }

  /** What a call answered, as text: an outcome in full, a move, an array, or what it threw. */
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
      if (o instanceof Move m) {
        return "move " + m.from() + " to " + m.to() + " of " + m.depth();
      }
      if (o instanceof int[] counts) {
        return Arrays.toString(counts);
      }
      return String.valueOf(o);
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName();
    }
  }

  /** The counters and the line; ready clients as a set (either line may list them its way). */
  private static String state(Line l) {
    long waiting = l.waiting(); // first: the Redis line's other counters are as of this reply
    TreeSet<String> ready = new TreeSet<>();
    List<String> line = new ArrayList<>();
    for (TicketInfo t : l.queue(Integer.MAX_VALUE)) {
      if (t.position() == 0) {
        ready.add(t.token());
      } else {
        line.add(
            t.token() + " at " + t.position() + (t.seen() ? " seen" : "") + " rank " + t.rank());
      }
    }
    return "capacity "
        + l.capacity()
        + ", in flight "
        + l.inFlight()
        + ", free "
        + l.freeSlots()
        + ", waiting "
        + waiting
        + ", ready "
        + l.ready()
        + ", allowance "
        + l.allowance()
        + ", used "
        + l.used()
        + ", ready "
        + ready
        + ", line "
        + line;
  }
}
