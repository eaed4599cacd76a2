package dev.room.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The VIP passes: a pass check allocates nothing, the book matches a map under grants, regrants,
 * sweeps and restores, and a check racing grants and sweeps never misses a pass that stays.
 */
class PassBookTest {

  /**
   * A pass check built a key object per call (a record of the token's two halves for the map), so
   * whether a status poll with a pass cookie allocated was up to escape analysis: the JMH run of
   * 2026-12-03 measured 32 B per {@code hasValidPass} at 2 threads. Interpreted code allocates
   * whatever the JIT would do, so the count here does not depend on when compilation happens.
   */
  @Test
  void aPassCheckAllocatesNoKeyObject() {
    PassBook book = new PassBook();
    SplittableRandom random = new SplittableRandom(16);
    long[][] granted = new long[500][];
    for (int i = 0; i < granted.length; i++) {
      granted[i] = new long[] {random.nextLong(), random.nextLong()};
      book.grant(granted[i][0], granted[i][1], 1_000 + i);
    }
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long sum = 0;
    long before = threads.getThreadAllocatedBytes(id);
    for (int round = 0; round < 40; round++) {
      for (long[] t : granted) {
        sum += book.expiry(t[0], t[1]);
        sum += book.expiry(t[0], ~t[1]); // no such pass
      }
    }
    long allocated = threads.getThreadAllocatedBytes(id) - before;
    assertEquals(40L * (1_000 * 500 + 499 * 500 / 2), sum);
    assertTrue(allocated < 4_096, allocated + " bytes allocated by 40,000 pass checks");
  }

  @Test
  void matchesAMapUnderGrantsRegrantsSweepsAndRestores() {
    SplittableRandom random = new SplittableRandom(1603);
    PassBook book = new PassBook();
    Map<List<Long>, Long> model = new HashMap<>();
    List<long[]> known = new ArrayList<>();
    long now = 0;
    for (int step = 0; step < 40_000; step++) {
      int op = random.nextInt(100);
      if (op < 60 || known.isEmpty()) {
        long[] t = {random.nextLong(), random.nextLong()};
        known.add(t);
        long at = now + 1 + random.nextInt(500);
        book.grant(t[0], t[1], at);
        model.put(List.of(t[0], t[1]), at);
      } else if (op < 75) { // a regrant moves the expiry, either way
        long[] t = known.get(random.nextInt(known.size()));
        long at = now + random.nextInt(500);
        book.grant(t[0], t[1], at);
        model.put(List.of(t[0], t[1]), at);
      } else if (op < 78) {
        now += random.nextInt(200);
        long cut = now;
        int expected = (int) model.values().stream().filter(e -> e <= cut).count();
        assertEquals(expected, book.sweep(now));
        model.values().removeIf(e -> e <= cut);
      } else if (op < 79) {
        PassBook copy = new PassBook();
        List<long[]> exported = export(book);
        copy.replace(PassBook.read(exported.iterator()));
        assertEquals(exported.size(), export(copy).size());
        for (int i = 0; i < exported.size(); i++) {
          assertArrayEquals(exported.get(i), export(copy).get(i));
        }
        book = copy;
      } else {
        long[] t = known.get(random.nextInt(known.size()));
        assertEquals(model.getOrDefault(List.of(t[0], t[1]), 0L), book.expiry(t[0], t[1]));
        assertEquals(0, book.expiry(t[1], t[0]));
      }
    }
    List<long[]> exported = export(book);
    assertEquals(model.size(), exported.size());
    for (long[] p : exported) {
      assertEquals(model.get(List.of(p[0], p[1])), p[2]);
    }
  }

  @Test
  void exportIsInExpiryThenTokenOrder() {
    PassBook book = new PassBook();
    book.grant(5, 1, 30);
    book.grant(-1, 0, 10); // unsigned order: after 5
    book.grant(5, 0, 10);
    book.grant(2, 9, 20);
    List<long[]> out = export(book);
    assertArrayEquals(new long[] {5, 0, 10}, out.get(0));
    assertArrayEquals(new long[] {-1, 0, 10}, out.get(1));
    assertArrayEquals(new long[] {2, 9, 20}, out.get(2));
    assertArrayEquals(new long[] {5, 1, 30}, out.get(3));
  }

  @Test
  void aCheckRacingGrantsAndSweepsNeverMissesAPassThatStays() throws Exception {
    PassBook book = new PassBook();
    long[][] stay = new long[2_000][];
    SplittableRandom random = new SplittableRandom(1604);
    for (int i = 0; i < stay.length; i++) {
      stay[i] = new long[] {random.nextLong(), random.nextLong()};
      book.grant(stay[i][0], stay[i][1], Long.MAX_VALUE - i);
    }
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<Integer> writer =
          pool.submit(
              () -> {
                SplittableRandom r = new SplittableRandom(1605);
                int sweeps = 0;
                for (int round = 0; round < 200; round++) {
                  for (int k = 0; k < 500; k++) { // short passes: the table grows, then shrinks
                    book.grant(r.nextLong(), r.nextLong(), round + 1);
                  }
                  sweeps += book.sweep(round);
                }
                done.set(true);
                return sweeps;
              });
      List<Future<Long>> readers = new ArrayList<>();
      for (int n = 0; n < 2; n++) {
        readers.add(
            pool.submit(
                () -> {
                  long checks = 0;
                  for (int i = 0; !done.get() || checks < stay.length; i = (i + 1) % stay.length) {
                    long e = book.expiry(stay[i][0], stay[i][1]);
                    if (e != Long.MAX_VALUE - i) {
                      throw new AssertionError("pass " + i + " read " + e);
                    }
                    checks++;
                  }
                  return checks;
                }));
      }
      assertEquals(199 * 500, writer.get(60, TimeUnit.SECONDS));
      for (Future<Long> r : readers) {
        assertTrue(r.get(60, TimeUnit.SECONDS) >= stay.length);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<long[]> export(PassBook book) {
    List<long[]> out = new ArrayList<>();
    book.export(out::add);
    return out;
  }
}
