package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The copy's groups ({@link HeadsGroups}): ranks as a sorted set of the same groups would, while
 * the bits grow, under repeated and missing changes (a replay), and beside higher bands.
 */
class HeadsMirrorGroupsTest {
  @Test
  void ranksAsASortedSetThroughGrowthAndReplays() {
    Random random = new Random(16);
    HeadsGroups groups = new HeadsGroups();
    TreeSet<Long> band0 = new TreeSet<>();
    TreeSet<String> higher = new TreeSet<>();
    for (int step = 0; step < 20_000; step++) {
      boolean present = random.nextInt(3) > 0;
      if (random.nextInt(50) == 0) {
        long band = 1 + random.nextInt(3);
        long place = random.nextInt(100) - 5; // negative places too
        groups.set(band, place, present);
        String member = String.format("%08x%016x", Integer.MAX_VALUE - band, place);
        if (present) {
          higher.add(member);
        } else {
          higher.remove(member);
        }
        continue;
      }
      // places far apart now and then, so the bits grow in several steps
      long place = random.nextInt(step < 10_000 ? 5_000 : 300_000);
      groups.set(0, place, present); // a set twice or a clear of an absent one changes nothing
      if (present) {
        band0.add(place);
      } else {
        band0.remove(place);
      }
      if (step % 97 == 0) {
        for (long p : new long[] {0, 1, 63, 64, 65, place, place + 1, 299_999, 1_000_000}) {
          assertEquals(higher.size() + band0.headSet(p).size(), groups.before(p), "place " + p);
        }
        assertEquals(higher.size() + band0.size(), groups.size());
      }
    }
    groups.set(0, HeadsMirror.SPAN, true); // beyond what the copy keeps: ranked by Redis
    groups.set(0, -1, true);
    assertEquals(higher.size() + band0.size(), groups.size());
  }

  @Test
  void aCopyReadFromMembersRanksAsOneFedByChanges() {
    HeadsGroups read = new HeadsGroups();
    HeadsGroups fed = new HeadsGroups();
    for (long p = 3; p < 70_000; p += 11) {
      read.add(String.format("%08x%016x", Integer.MAX_VALUE, p));
      fed.set(0, p, true);
    }
    read.add(String.format("%08x%016x", Integer.MAX_VALUE - 2, -7L));
    fed.set(2, -7, true);
    read.add(String.format("%08x%016x", 0, 5L)); // band MAXBAND (restored as called)
    fed.set(Integer.MAX_VALUE, 5, true);
    for (long p : new long[] {0, 3, 4, 64, 65_536, 69_999, 70_000}) {
      assertEquals(fed.before(p), read.before(p), "place " + p);
    }
    assertEquals(fed.size(), read.size());
  }
}
