package dev.room.spi;

import dev.room.engine.AdmissionMeter;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * The soak (issue 16, keep the origin busy) as a discrete-event simulation on a fake clock, so its
 * figures do not depend on how loaded the machine is: browsers that behave like the built-in page
 * (held status polls near the front, answered the moment a freed slot is theirs, as {@code
 * HeadOfLine} does; a poll every 3 s further back; a claim one round trip after being told),
 * abandons that stop polling for good, and an origin whose requests take 50–500 ms. The line is a
 * real one; the room's part (held polls, absence applied a few times a window) is played here as
 * the room plays it.
 */
final class OriginSimulation {
  static final long HOLD = 1000; // HeadOfLine.HOLD_MILLIS
  static final int BAND = 4; // HeadOfLine.HOLD_BAND, in multiples of capacity
  static final long FAR_POLL = 3000; // Standing.POLL_MILLIS
  static final long WAKE_GAP = 50; // HeadOfLine: re-polls of the held on the status path

  private final Line line;
  private final Policy policy;
  private final LongSupplier clock;
  private final java.util.function.LongConsumer advanceTo;
  private final int capacity;
  private final SplittableRandom random;
  private final PriorityQueue<long[]> events =
      new PriorityQueue<>(
          (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
  private final List<Browser> browsers = new ArrayList<>();
  private final AdmissionMeter meter = new AdmissionMeter(30_000); // as Sale measures
  private long seq;
  private int inFlight;
  private int maxInFlight;
  private long liveWaiting;
  private long lastWake = Long.MIN_VALUE / 2;
  private final List<Long> freed = new ArrayList<>();
  private final List<Long> handovers = new ArrayList<>();
  private int freedAt;

  // results
  double utilisation;
  double meanOffers;
  double meanFree;
  private double readySum;
  private double freeSum;
  double handoverMedian;
  long served;
  long orderViolations;

  private static final int ARRIVE = 0, POLL = 1, TIMEOUT = 2, CLAIM = 3, EXIT = 4, ABSENCE = 5;

  OriginSimulation(
      Line line,
      Policy policy,
      LongSupplier clock,
      java.util.function.LongConsumer advanceTo,
      long seed) {
    this.line = line;
    this.policy = policy;
    this.clock = clock;
    this.advanceTo = advanceTo;
    this.capacity = line.capacity();
    this.random = new SplittableRandom(seed);
  }

  private final class Browser {
    final int id;
    final long[] token = Tokens.generate();
    final boolean abandons;
    final long quitAt;
    long arrivedAt = -1;
    long toldAt = -1;
    boolean held;
    long holdGeneration;
    boolean quit;

    Browser(int id, boolean abandons, long quitAt) {
      this.id = id;
      this.abandons = abandons;
      this.quitAt = quitAt;
    }
  }

  private void at(long t, int kind, long who) {
    events.add(new long[] {t, seq++, kind, who});
  }

  private long rtt() {
    return 2 + random.nextLong(19); // 2-20 ms
  }

  /** Runs {@code n} browsers arriving over {@code arriveMillis} for {@code runMillis}. */
  void run(int n, long arriveMillis, double abandon, long runMillis) {
    long start = clock.getAsLong();
    for (int i = 0; i < n; i++) {
      boolean a = random.nextDouble() < abandon;
      Browser b = new Browser(i, a, start + (long) (random.nextDouble() * runMillis));
      browsers.add(b);
      at(start + i * arriveMillis / n, ARRIVE, i);
    }
    at(start, ABSENCE, 0);
    meter.start(start);
    long end = start + runMillis;
    long busy = 0;
    double inFlightSum = 0;
    long nextSample = start;
    while (!events.isEmpty() && events.peek()[0] < end) {
      long[] e = events.poll();
      while (nextSample < e[0]) { // samples every 10 ms, as the soak does
        if (liveWaiting >= capacity) {
          busy++;
          inFlightSum += inFlight;
          readySum += line.ready();
          if (DEBUG && (nextSample - start) % 1000 == 0) {
            debug(nextSample);
          }
          freeSum += line.freeSlots();
        }
        nextSample += 10;
      }
      advanceTo.accept(e[0]);
      long now = e[0];
      switch ((int) e[2]) {
        case ARRIVE -> arrive(browsers.get((int) e[3]), now);
        case POLL -> poll(browsers.get((int) e[3]), now);
        case TIMEOUT -> timeout(browsers.get((int) e[3]), e, now);
        case CLAIM -> claim(browsers.get((int) e[3]), now);
        case EXIT -> exit(now);
        case ABSENCE -> {
          if (line.lapseAbsent(now, policy) > 0) {
            wake(now);
          }
          at(now + Math.max(1, policy.presenceWindow() / 4), ABSENCE, 0);
        }
        default -> throw new IllegalStateException();
      }
    }
    utilisation = busy == 0 ? Double.NaN : inFlightSum / busy / capacity;
    meanOffers = readySum / Math.max(1, busy);
    meanFree = freeSum / Math.max(1, busy);
    long[] h = handovers.stream().mapToLong(Long::longValue).sorted().toArray();
    handoverMedian = h.length == 0 ? Double.NaN : h[h.length / 2];
    orderViolations = orderViolations(end);
    // hand every slot back so the line's ledger closes
    while (inFlight > 0) {
      inFlight--;
      line.exit(end);
    }
  }

  static final boolean DEBUG = Boolean.getBoolean("room.sim.debug");

  private void debug(long now) {
    java.util.Map<String, Browser> byToken = new java.util.HashMap<>();
    for (Browser b : browsers) {
      byToken.put(Tokens.format(b.token[0], b.token[1]), b);
    }
    int dead = 0, heldN = 0, other = 0, toldN = 0;
    StringBuilder sb = new StringBuilder();
    for (dev.room.TicketInfo t : line.queue((int) line.ready())) {
      Browser b = byToken.get(t.token());
      if (b.toldAt >= 0) {
        toldN++;
      } else if (b.abandons && now >= b.quitAt) {
        dead++;
      } else if (b.held) {
        heldN++;
      } else {
        other++;
        sb.append(" #").append(b.id);
      }
    }
    System.out.printf(
        "t=%d inflight %d ready %d: told %d dead %d held %d other %d%s%n",
        now, inFlight, line.ready(), toldN, dead, heldN, other, sb);
  }

  private void arrive(Browser b, long now) {
    long o = line.arrive(b.token[0], b.token[1], "", false, now, policy);
    if (Outcome.kind(o) == Outcome.ADMITTED) {
      enter(now);
      return;
    }
    b.arrivedAt = now;
    liveWaiting++;
    at(now + rtt(), POLL, b.id);
  }

  private void poll(Browser b, long now) {
    if (b.abandons && now >= b.quitAt) {
      if (!b.quit) {
        b.quit = true;
        liveWaiting--;
      }
      return; // gone for good: no poll, no hold
    }
    long o = line.poll(b.token[0], b.token[1], now, policy);
    if (Outcome.kind(o) == Outcome.READY) {
      told(b, now);
    } else if (Outcome.kind(o) == Outcome.WAITING) {
      long pos = Outcome.position(o);
      double rate = meter.perSecond(now);
      long band = band(rate);
      if (pos <= band) { // held, even if sooner than the poll interval
        b.held = true;
        b.holdGeneration++;
        events.add(new long[] {now + HOLD, seq++, TIMEOUT, b.id, b.holdGeneration});
      } else if (Outcome.has(o, Outcome.RATE_LIMITED)) {
        at(now + 1000, POLL, b.id); // a 429: Retry-After 1
      } else {
        at(now + Math.max(1000, pollAfter(pos, band, rate)), POLL, b.id);
      }
    }
    if (now - lastWake >= WAKE_GAP && line.ready() > 0) {
      lastWake = now;
      wake(now);
    }
  }

  /**
   * HeadOfLine.band: 4 × capacity, or 4 s of the measured rate if more; 16 × before it is known.
   */
  private long band(double rate) {
    long b = (long) BAND * capacity;
    if (rate > 0) {
      b = Math.max(b, (long) Math.ceil(rate * 4));
    } else {
      b = 16L * capacity;
    }
    return Math.min(b, 1000);
  }

  /** HeadOfLine.pollAfter behind the band: soon enough to be in it when the line gets there. */
  private static long pollAfter(long pos, long band, double rate) {
    if (rate > 0) {
      return Math.min(FAR_POLL, Math.max(1000, (long) ((pos - band) / rate * 1000 / 2)));
    }
    return FAR_POLL;
  }

  private void timeout(Browser b, long[] e, long now) {
    if (e.length < 5 || !b.held || e[4] != b.holdGeneration) {
      return;
    }
    b.held = false;
    at(now + rtt(), POLL, b.id); // poll_after_ms 0: at once
  }

  private void told(Browser b, long now) {
    b.held = false;
    if (b.toldAt < 0) {
      b.toldAt = now;
      if (!b.quit) {
        liveWaiting--;
      }
    }
    at(now + rtt(), CLAIM, b.id); // the page reloads: the claim
  }

  /** HeadOfLine's wake: re-polls the held front to back, stopping at the first still waiting. */
  private void wake(long now) {
    List<Browser> held = new ArrayList<>();
    for (Browser b : browsers) {
      if (b.held) {
        held.add(b); // in arrival order: the line's order, as nobody is promoted here
      }
    }
    for (Browser b : held) {
      long o = line.poll(b.token[0], b.token[1], now, policy);
      if (Outcome.kind(o) == Outcome.READY) {
        told(b, now);
      } else {
        return;
      }
    }
  }

  private void claim(Browser b, long now) {
    long o = line.claim(b.token[0], b.token[1], now, policy);
    if (Outcome.kind(o) == Outcome.ADMITTED) {
      enter(now);
    } else if (Outcome.kind(o) == Outcome.WAITING) {
      at(now + 1000, POLL, b.id);
    }
  }

  private void enter(long now) {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (inFlight > capacity) {
      throw new AssertionError("in flight " + inFlight + " > capacity " + capacity);
    }
    if (freedAt < freed.size()) {
      handovers.add(now - freed.get(freedAt++));
    }
    at(now + 50 + random.nextLong(451), EXIT, 0);
    served++;
    meter.record();
  }

  private void exit(long now) {
    inFlight--;
    line.exit(now);
    if (liveWaiting >= capacity) {
      freed.add(now);
    }
    wake(now);
  }

  int maxInFlight() {
    return maxInFlight;
  }

  /** Live browsers told ready after a later arrival by more than 3 s, as the soak counts them. */
  private long orderViolations(long end) {
    List<Browser> live = new ArrayList<>();
    for (Browser b : browsers) {
      if (!b.abandons && b.arrivedAt >= 0) {
        live.add(b);
      }
    }
    long earliestLater = Long.MAX_VALUE;
    long v = 0;
    for (int i = live.size() - 1; i >= 0; i--) {
      Browser b = live.get(i);
      long told = b.toldAt < 0 ? end : b.toldAt;
      if (earliestLater != Long.MAX_VALUE && told - earliestLater > 3000) {
        v++;
      }
      if (b.toldAt >= 0) {
        earliestLater = Math.min(earliestLater, b.toldAt);
      }
    }
    return v;
  }

  @Override
  public String toString() {
    return String.format(
        "utilisation %.3f (offers %.1f, free %.1f), hand-over median %.0f ms, served %d, order"
            + " violations %d, max in flight %d",
        utilisation, meanOffers, meanFree, handoverMedian, served, orderViolations, maxInFlight);
  }
}
