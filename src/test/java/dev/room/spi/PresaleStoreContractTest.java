package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.TicketInfo;
import dev.room.engine.PresaleDraw;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The pre-sale store's contract, run on every implementation: in this process and in Redis. Two
 * handles on one store stand for two instances on one line; the draw moves that line.
 */
public abstract class PresaleStoreContractTest {
  private static final Policy POLICY = new Policy(3_600_000, 0, 1000, 100_000, 60_000, 0);

  protected final FakeClock clock = new FakeClock();

  /** A line of one slot that hands nothing over (allowance 0), and its pre-sale. */
  public record Handle(Line line, PresaleStore store) {}

  /** A fresh line and store, nothing scheduled. */
  protected abstract Handle open();

  /** A second instance on the line and store of {@code h}; {@code h} itself if there is one. */
  protected abstract Handle sameStore(Handle h);

  private static String seed() {
    return PresaleDraw.hex(PresaleDraw.newSeed());
  }

  private List<String> arrive(Handle h, int n) {
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long[] t = Tokens.generate();
      long o = h.line().arrive(t[0], t[1], "", false, clock.millis(), POLICY);
      assertEquals(Outcome.WAITING, Outcome.kind(o));
      tokens.add(Tokens.format(t[0], t[1]));
    }
    return tokens;
  }

  private static List<String> queue(Handle h) {
    return h.line().queue(1000).stream().map(TicketInfo::token).toList();
  }

  private static List<String> drawn(List<String> arrivals, String seed) {
    List<String> out = new ArrayList<>();
    for (int i : PresaleDraw.order(PresaleDraw.unhex(seed), arrivals.size())) {
      out.add(arrivals.get(i));
    }
    return out;
  }

  @Test
  void nothingIsScheduledAtFirst() {
    PresaleStore.State s = open().store().read();
    assertEquals(0, s.version());
    assertFalse(s.scheduled());
    assertNull(s.seed());
    assertFalse(s.drawn());
  }

  @Test
  void aMoveKeepsTheFirstSeedSoTheCommitmentStaysValid() {
    Handle a = open();
    Handle b = sameStore(a);
    String first = seed();
    PresaleStore.State s = a.store().schedule(1_000_000, first);
    assertTrue(s.scheduled());
    assertEquals(first, s.seed());
    assertEquals(1_000_000, s.opensAt());
    PresaleStore.State moved = b.store().schedule(2_000_000, seed());
    assertEquals(first, moved.seed(), "the seed the fleet committed to");
    assertEquals(2_000_000, moved.opensAt());
    assertTrue(moved.version() > s.version());
    for (Handle h : List.of(a, b)) {
      assertEquals(moved, h.store().read(), "every instance reads the same pre-sale");
    }
  }

  @Test
  void aCancelledPresaleTakesANewSeedWhenScheduledAgain() {
    Handle a = open();
    Handle b = sameStore(a);
    a.store().schedule(1_000_000, seed());
    PresaleStore.State c = b.store().cancel();
    assertFalse(c.scheduled());
    assertEquals(c, a.store().read());
    String next = seed();
    assertEquals(next, a.store().schedule(1_500_000, next).seed());
  }

  @Test
  void theDrawHappensOnceWhoeverAsksAndEveryInstanceReadsIt() {
    Handle a = open();
    Handle b = sameStore(a);
    List<String> arrivals = arrive(a, 5);
    arrivals.addAll(arrive(b, 4));
    long opens = clock.millis() + 60_000;
    String seed = seed();
    a.store().schedule(opens, seed);
    assertEquals(-1, b.store().draw(opens - 1, seed, n -> PresaleDraw.order(new byte[32], n)));
    assertEquals(arrivals, queue(a), "not open yet: nothing moved");
    assertEquals(-1, b.store().draw(opens, seed(), n -> new int[n]), "another seed: nothing");
    assertEquals(arrivals, queue(a));

    assertEquals(
        9, b.store().draw(opens, seed, n -> PresaleDraw.order(PresaleDraw.unhex(seed), n)));
    List<String> expected = drawn(arrivals, seed);
    assertEquals(expected, queue(a));
    AtomicInteger asked = new AtomicInteger();
    int again =
        a.store()
            .draw(
                opens + 1,
                seed,
                n -> {
                  asked.incrementAndGet();
                  return PresaleDraw.order(PresaleDraw.unhex(seed), n);
                });
    assertEquals(-1, again, "drawn already");
    assertEquals(0, asked.get(), "a second draw does not even ask for an order");
    assertEquals(expected, queue(b), "the one draw, as every instance reads the line");
    for (Handle h : List.of(a, b)) {
      PresaleStore.State s = h.store().read();
      assertTrue(s.drawn());
      assertEquals(9, s.group());
      assertEquals(seed, s.seed(), "the seed, to be revealed");
    }
    PresaleStore.State after = a.store().read();
    assertEquals(after, b.store().schedule(opens + 60_000, seed()), "a drawn pre-sale stays");
    assertEquals(after, a.store().cancel());
  }

  @Test
  void concurrentDrawsOnEveryInstanceDrawOnce() throws Exception {
    Handle a = open();
    List<String> arrivals = arrive(a, 30);
    long opens = clock.millis() + 1000;
    String seed = seed();
    a.store().schedule(opens, seed);
    List<Handle> handles = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      handles.add(sameStore(a));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    try {
      for (Handle h : handles) {
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return h.store()
                      .draw(opens, seed, n -> PresaleDraw.order(PresaleDraw.unhex(seed), n));
                }));
      }
      go.countDown();
      List<Integer> got = new ArrayList<>();
      for (Future<Integer> f : results) {
        got.add(f.get(30, TimeUnit.SECONDS));
      }
      assertEquals(1, got.stream().filter(n -> n == 30).count(), "one draw: " + got);
      assertEquals(3, got.stream().filter(n -> n == -1).count(), "the others drew nothing");
    } finally {
      pool.shutdownNow();
    }
    assertEquals(drawn(arrivals, seed), queue(a), "the line moved once");
  }

  @Test
  void aDrawThatIsNotAPermutationMovesNothingAndDrawsNot() {
    Handle a = open();
    List<String> arrivals = arrive(a, 3);
    String seed = seed();
    a.store().schedule(clock.millis() + 1, seed);
    assertThrows(
        IllegalArgumentException.class,
        () -> a.store().draw(clock.millis() + 1, seed, n -> new int[n]));
    assertEquals(arrivals, queue(a));
    assertFalse(a.store().read().drawn());
    assertEquals(3, a.store().draw(clock.millis() + 1, seed, n -> new int[] {2, 0, 1}));
    assertEquals(List.of(arrivals.get(2), arrivals.get(0), arrivals.get(1)), queue(a));
  }

  @Test
  void aDrawOfNobodyIsADraw() {
    Handle a = open();
    String seed = seed();
    a.store().schedule(clock.millis() + 1, seed);
    assertEquals(0, a.store().draw(clock.millis() + 1, seed, n -> new int[n]));
    assertTrue(sameStore(a).store().read().drawn());
  }

  @Test
  void replaceSetsWhateverItIsGiven() {
    Handle a = open();
    Handle b = sameStore(a);
    String seed = seed();
    a.store().schedule(5_000, seed());
    PresaleStore.State s = b.store().replace(7_000, seed, true, 12);
    assertEquals(7_000, s.opensAt());
    assertEquals(seed, s.seed());
    assertTrue(s.drawn());
    assertEquals(12, s.group());
    assertEquals(s, a.store().read());
    PresaleStore.State none = a.store().replace(0, null, false, 0);
    assertFalse(none.scheduled());
    assertTrue(none.version() > s.version(), "the version moves on every change");
    assertArrayEquals(new Object[] {none}, new Object[] {b.store().read()});
  }
}
