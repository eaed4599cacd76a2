package dev.room.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The token store against a map: tokens minted to name their record and foreign ones (found through
 * the overflow index), removals, endings that free records for reuse, rekeys, through the first
 * chunk's growth and past it into further chunks.
 */
class TokenStoreTest {

  @Test
  void matchesAMapThroughGrowthAndReuse() {
    SplittableRandom random = new SplittableRandom(2026_12_07L);
    TokenStore store = new TokenStore();
    Map<List<Long>, Ticket> model = new HashMap<>();
    List<Ticket> live = new ArrayList<>();
    int target = 70_000; // past one full chunk of 65,535 records
    for (int step = 0; step < 200_000; step++) {
      int op = random.nextInt(10);
      if (step == 150_000) {
        target = 50; // drain: freed records go back on the free list, then are reused
      }
      if (op < (live.size() < target ? 7 : 2) || live.isEmpty()) {
        long hi = random.nextLong();
        long lo = random.nextLong();
        boolean mint = random.nextInt(4) != 0;
        if (mint) {
          lo = TokenStore.naming(lo, store.nextRecord());
        }
        Ticket t = store.issue(hi, lo, step);
        assertNotNull(t);
        assertEquals(mint, t.rec() == (int) lo, "a minted token names its record");
        assertEquals(Ticket.NO_SLOT, t.slot(), "in no index yet, even in a reused record");
        t.slot(step); // as an index would: the record's next ticket must not see it
        model.put(List.of(hi, lo), t);
        live.add(t);
      } else if (op < 9) {
        int k = random.nextInt(live.size());
        Ticket t = live.get(k);
        live.set(k, live.get(live.size() - 1));
        live.remove(live.size() - 1);
        long hi = t.hi();
        long lo = t.lo();
        assertTrue(store.remove(t));
        assertFalse(store.remove(t));
        assertNull(store.get(hi, lo), "an unlisted ticket is not found");
        assertEquals(lo, t.lo(), "but keeps its record until it ends");
        t.end();
        assertEquals(Ticket.GONE, t.state());
        assertThrows(IllegalStateException.class, t::hi, "an ended ticket reads no record");
        assertNull(store.get(hi, lo));
        model.remove(List.of(hi, lo));
      } else {
        Ticket t = live.get(random.nextInt(live.size()));
        long hi = random.nextLong();
        long lo = random.nextInt(2) == 0 ? TokenStore.naming(random.nextLong(), t.rec()) : 0;
        model.remove(List.of(t.hi(), t.lo()));
        store.rekey(t, hi, lo);
        model.put(List.of(hi, lo), t);
      }
      if (step % 9_973 == 0 || live.size() < 70) {
        assertEquals(model.size(), store.size());
        assertNull(store.check());
        model.forEach((k, t) -> assertSame(t, store.get(k.get(0), k.get(1))));
        assertEquals(model.size(), store.snapshot().length);
      }
      long absentHi = random.nextLong();
      assertNull(store.get(absentHi, TokenStore.naming(random.nextLong(), random.nextInt(80_000))));
    }
    assertNull(store.check());
  }

  @Test
  void aRecordFreedAndReusedIsNotFoundByTheOldToken() {
    TokenStore store = new TokenStore();
    long lo = TokenStore.naming(0x1234_5678_0000_0000L, store.nextRecord());
    Ticket a = store.issue(7, lo, 1);
    int rec = a.rec();
    assertTrue(store.remove(a));
    a.end();
    Ticket b = store.issue(8, TokenStore.naming(99L << 32, store.nextRecord()), 2);
    assertEquals(rec, b.rec(), "the record is reused");
    assertNull(store.get(7, lo));
    assertSame(b, store.get(8, b.lo()));
    assertEquals(Ticket.GONE, a.state());
    assertNull(store.check());
  }

  @Test
  void aDuplicateTokenIsRefusedAndTakesNoRecord() {
    TokenStore store = new TokenStore();
    long lo = TokenStore.naming(5L << 32, store.nextRecord());
    assertNotNull(store.issue(1, lo, 1));
    assertNull(store.issue(1, lo, 2));
    long foreign = 0xABCD_EF01_2345_6789L;
    assertNotNull(store.issue(2, foreign, 3));
    assertNull(store.issue(2, foreign, 4));
    assertEquals(2, store.size());
    assertEquals(2, store.records.used());
    assertNull(store.check());
  }

  @Test
  void aRestoredTokenTakesTheRecordItNames() {
    SplittableRandom random = new SplittableRandom(16);
    TokenStore before = new TokenStore();
    List<long[]> kept = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      long lo = TokenStore.naming(random.nextLong(), before.nextRecord());
      Ticket t = before.issue(random.nextLong(), lo, i);
      if (random.nextInt(3) == 0) { // left before the export: its record is not taken after
        before.remove(t);
        t.end();
      } else {
        kept.add(new long[] {t.hi(), t.lo()});
      }
    }
    java.util.Collections.shuffle(kept, new java.util.Random(17)); // line order, not record order
    TokenStore after = new TokenStore();
    for (long[] k : kept) {
      Ticket t = after.issue(k[0], k[1], 0);
      assertEquals((int) k[1], t.rec(), "filed in the record its token names");
    }
    Ticket foreign = after.issue(1, 0x7FFF_0000_1234_5678L, 0); // names record 305,419,896
    assertNotNull(foreign);
    assertTrue(foreign.rec() < 3 * TicketRecords.PER_CHUNK, "a far record number makes no records");
    Ticket fresh = after.issue(2, TokenStore.naming(3, after.nextRecord()), 0);
    assertEquals((int) fresh.lo(), fresh.rec(), "a minted token takes a record the restore left");
    assertNull(after.check());
    for (long[] k : kept) {
      assertNotNull(after.get(k[0], k[1]));
    }
  }
}
