package dev.room.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The index against a sorted list: positions with ties, selection, iteration, removal; with its
 * real node sizes and with tiny ones, so that a few thousand tickets make a deep tree whose splits,
 * merges and root changes all happen.
 */
class LineIndexTest {
  private static final TestTickets TICKETS = new TestTickets();

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 42, 1234567})
  void matchesASortedListUnderRandomOperations(long seed) {
    matchesASortedList(seed, new LineIndex());
  }

  @ParameterizedTest
  @CsvSource({"1, 2, 2", "2, 3, 3", "3, 4, 3", "4, 5, 4", "5, 8, 5", "6, 16, 8", "7, 2, 64"})
  void matchesASortedListWithSmallNodes(long seed, int leafCapacity, int fanout) {
    matchesASortedList(seed, new LineIndex(leafCapacity, fanout));
  }

  @ParameterizedTest
  @ValueSource(longs = {7, 8, 99})
  void findsTheFirstPresentTicketAndTakesBackALapsedOneAtItsPlace(long seed) {
    findsTheFirstPresent(seed, new LineIndex());
  }

  @ParameterizedTest
  @CsvSource({"7, 2, 2", "8, 4, 3", "9, 3, 5", "10, 8, 4"})
  void findsTheFirstPresentTicketWithSmallNodes(long seed, int leafCapacity, int fanout) {
    findsTheFirstPresent(seed, new LineIndex(leafCapacity, fanout));
  }

  /**
   * A line's life at scale: arrivals at the back, offers from the first present, lapses back at
   * their old places, random removals, ties. The tree grows several levels, drains from the front
   * and stays within its bounds (no leaf under a quarter full next to one it fits in).
   */
  @ParameterizedTest
  @CsvSource({"11, 64, 64", "12, 4, 4", "13, 6, 3"})
  void followsALineThatGrowsAtTheBackAndDrainsAtTheFront(long seed, int leaf, int fanout) {
    Random rnd = new Random(seed);
    LineIndex index = new LineIndex(leaf, fanout);
    List<Ticket> model = new ArrayList<>();
    List<Ticket> offered = new ArrayList<>();
    long counter = 0;
    for (int step = 0; step < 60_000; step++) {
      int op = rnd.nextInt(100);
      int target = step < 30_000 ? 6000 : 300; // grow, then drain
      if (op < (model.size() < target ? 60 : 30) || model.isEmpty()) {
        Ticket t = TICKETS.make(step, step, ++counter);
        if (!model.isEmpty() && rnd.nextInt(20) == 0) {
          Ticket tieWith = model.get(rnd.nextInt(model.size()));
          t.band = tieWith.band;
          t.place = tieWith.place;
        } else {
          t.band = rnd.nextInt(50) == 0 ? 1 + rnd.nextInt(3) : 0;
          t.place = counter;
        }
        t.order = counter;
        t.away(rnd.nextInt(10) == 0);
        index.insert(t);
        insertSorted(model, t);
      } else if (op < 75) {
        Ticket first = index.firstPresent();
        if (first != null) {
          index.remove(first);
          model.remove(first);
          offered.add(first);
        }
      } else if (op < 85 && !offered.isEmpty()) {
        Ticket t = offered.remove(rnd.nextInt(offered.size()));
        t.away(true);
        index.insert(t);
        insertSorted(model, t);
      } else if (op < 95) {
        Ticket t = model.remove(rnd.nextInt(model.size()));
        index.remove(t);
      } else {
        Ticket t = model.get(rnd.nextInt(model.size()));
        index.setAway(t, !t.away());
      }
      if (step % 5000 == 0) {
        check(index, model);
      }
    }
    check(index, model);
  }

  private static void insertSorted(List<Ticket> model, Ticket t) {
    int i = 0;
    int j = model.size();
    while (i < j) {
      int mid = (i + j) >>> 1;
      if (model.get(mid).compareTo(t) < 0) {
        i = mid + 1;
      } else {
        j = mid;
      }
    }
    model.add(i, t);
  }

  private static void matchesASortedList(long seed, LineIndex index) {
    Random rnd = new Random(seed);
    List<Ticket> model = new ArrayList<>();
    long counter = 0;
    for (int step = 0; step < 3000; step++) {
      int op = rnd.nextInt(10);
      if (op < 5 || model.isEmpty()) {
        Ticket t = TICKETS.make(rnd.nextLong(), rnd.nextLong(), ++counter);
        if (!model.isEmpty() && rnd.nextInt(4) == 0) {
          Ticket tieWith = model.get(rnd.nextInt(model.size()));
          t.band = tieWith.band;
          t.place = tieWith.place;
        } else {
          t.band = rnd.nextInt(6) == 0 ? rnd.nextInt(3) + 1 : 0;
          t.place = counter;
        }
        t.order = counter;
        index.insert(t);
        model.add(t);
        model.sort(LineIndexTest::compare);
      } else {
        Ticket t = model.remove(rnd.nextInt(model.size()));
        index.remove(t);
      }
      if (step % 50 == 0) {
        check(index, model);
      }
    }
    check(index, model);
  }

  /** Presence counts and lapsed offers coming back with their old key, ahead of later members. */
  private static void findsTheFirstPresent(long seed, LineIndex index) {
    Random rnd = new Random(seed);
    List<Ticket> model = new ArrayList<>();
    List<Ticket> offered = new ArrayList<>();
    long counter = 0;
    for (int step = 0; step < 3000; step++) {
      int op = rnd.nextInt(10);
      if (op < 4 || model.isEmpty()) {
        Ticket t = TICKETS.make(rnd.nextLong(), rnd.nextLong(), ++counter);
        if (!model.isEmpty() && rnd.nextInt(3) == 0) {
          Ticket tieWith = model.get(rnd.nextInt(model.size()));
          t.band = tieWith.band;
          t.place = tieWith.place;
        } else {
          t.place = counter;
        }
        t.order = counter;
        t.away(rnd.nextInt(3) == 0);
        index.insert(t);
        model.add(t);
      } else if (op < 6) {
        Ticket t = model.get(rnd.nextInt(model.size()));
        index.setAway(t, !t.away());
      } else if (op < 8) {
        Ticket first = index.firstPresent();
        if (first != null) { // offered: leaves the line, may come back later
          index.remove(first);
          model.remove(first);
          offered.add(first);
        }
      } else if (!offered.isEmpty()) { // a lapse: back with its old key, away
        Ticket t = offered.remove(rnd.nextInt(offered.size()));
        t.away(true);
        index.insert(t);
        model.add(t);
      }
      model.sort(LineIndexTest::compare);
      if (step % 25 == 0) {
        check(index, model);
        Ticket firstPresent = model.stream().filter(t -> !t.away()).findFirst().orElse(null);
        assertSame(firstPresent, index.firstPresent());
        assertEquals(model.stream().filter(t -> !t.away()).count(), index.present());
      }
    }
    check(index, model);
  }

  @Test
  void tiedTicketsShareAPositionAndTheNextMemberInheritsHeadship() {
    LineIndex index = new LineIndex();
    Ticket a = ticket(1, 0, 1, 1);
    Ticket b = ticket(2, 0, 2, 2);
    Ticket c = ticket(3, 0, 2, 3); // tied with b
    Ticket d = ticket(4, 0, 4, 4);
    for (Ticket t : List.of(a, b, c, d)) {
      index.insert(t);
    }
    assertEquals(1, index.position(a));
    assertEquals(2, index.position(b));
    assertEquals(2, index.position(c));
    assertEquals(3, index.position(d));
    assertSame(b, index.groupAt(2));
    index.remove(b);
    assertEquals(2, index.position(c));
    assertEquals(3, index.position(d));
    assertSame(c, index.groupAt(2));
    assertNull(index.groupAt(4));
  }

  private static Ticket ticket(long id, int band, long place, long order) {
    Ticket t = TICKETS.make(id, id, id);
    t.band = band;
    t.place = place;
    t.order = order;
    return t;
  }

  private static int compare(Ticket a, Ticket b) {
    return a.compareTo(b);
  }

  private static void check(LineIndex index, List<Ticket> model) {
    index.checkStructure();
    assertEquals(model.size(), index.size());
    List<Ticket> inOrder = new ArrayList<>();
    index.forEach(Integer.MAX_VALUE, inOrder::add);
    assertEquals(model, inOrder);
    long position = 0;
    Ticket previous = null;
    for (Ticket t : model) {
      if (!t.sameGroup(previous)) {
        position++;
        assertSame(t, index.groupAt(position), "head of group " + position);
      }
      assertEquals(!t.sameGroup(previous), index.isHead(t));
      assertSame(previous, index.before(t));
      assertSame(previous, index.before(Ticket.keyOf(t)));
      assertEquals(position, index.position(t));
      previous = t;
    }
    assertEquals(position, index.groups());
    if (!model.isEmpty()) {
      int from = model.size() / 2;
      List<Ticket> tail = new ArrayList<>();
      index.forEachFrom(model.get(from), 7, tail::add);
      assertEquals(model.subList(from, Math.min(model.size(), from + 7)), tail);
      Ticket after = index.after(model.get(from));
      assertEquals(from + 1 < model.size() ? model.get(from + 1) : null, after);
      assertEquals(after, index.after(Ticket.keyOf(model.get(from))));
      List<Ticket> fromKey = new ArrayList<>();
      index.forEachFrom(Ticket.keyOf(model.get(from)), 7, fromKey::add);
      assertEquals(tail, fromKey);
      assertSame(model.get(0), index.first());
      Ticket firstPresent = model.stream().filter(t -> !t.away()).findFirst().orElse(null);
      assertSame(firstPresent, index.firstPresent());
    }
    model.sort(Comparator.comparing(t -> t, LineIndexTest::compare));
  }
}
