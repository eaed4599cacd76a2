package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.TicketInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The model test's two halves: a plain list-of-groups model of a line, and a seeded random walk of
 * arrive / exit / claim / remove / promote / rank / VIP arrival that runs on a real line and on the
 * model side by side, checking after every step that positions are a gap-free 1..n in {@code
 * queue()} order, tied clients equal, everything matches the model, the line's own invariants hold
 * and its ledger balances. {@link LineContractTest} runs it on every line.
 *
 * <p>Time is the contract's {@link FakeClock}, moved 10 ms a step, so that a line reading a clock
 * of its own (the Redis line's fast path and leases) sees the same time as the calls.
 */
final class LineModel {
  /** The model: ready tickets, then groups of tied waiting tickets with their band. */
  private static final class Model {
    final int capacity;
    int inFlight;
    final List<Long> ready = new ArrayList<>();
    final List<List<Long>> groups = new ArrayList<>();
    final List<Integer> bands = new ArrayList<>();
    final Set<Long> promoted = new HashSet<>();
    final Map<Long, Integer> ranks = new HashMap<>();

    Model(int capacity) {
      this.capacity = capacity;
    }

    int free() {
      return capacity - inFlight - ready.size();
    }

    int waiting() {
      return groups.stream().mapToInt(List::size).sum();
    }

    void rebalance() {
      while (!groups.isEmpty() && free() > 0) {
        List<Long> g = groups.get(0);
        ready.add(g.remove(0));
        if (g.isEmpty()) {
          groups.remove(0);
          bands.remove(0);
        }
      }
    }

    int groupOf(long id) {
      for (int i = 0; i < groups.size(); i++) {
        if (groups.get(i).contains(id)) {
          return i;
        }
      }
      return -1;
    }

    /** A promoted client joins group g behind earlier promotions, ahead of the place's holder. */
    void joinTie(int g, long id) {
      List<Long> members = groups.get(g);
      boolean holderLast = !promoted.contains(members.get(members.size() - 1));
      members.add(holderLast ? members.size() - 1 : members.size(), id);
      promoted.add(id);
    }

    /** The rank rule; returns whether the ticket passed someone (or left a tie to lead it). */
    boolean rank(long id, int rank) {
      ranks.put(id, rank);
      int g = groupOf(id);
      int i = groups.get(g).indexOf(id);
      int boundGroup = -1;
      search:
      for (int bg = g; bg >= 0; bg--) {
        List<Long> members = groups.get(bg);
        for (int bi = (bg == g ? i : members.size()) - 1; bi >= 0; bi--) {
          if (ranks.getOrDefault(members.get(bi), 0) >= rank) {
            boundGroup = bg;
            break search;
          }
        }
      }
      boolean hasPred = i > 0 || g > 0;
      int predGroup = i > 0 ? g : g - 1;
      boolean passes = hasPred && (boundGroup < 0 || predGroup != boundGroup);
      if (!passes && rank <= bands.get(g)) {
        return false;
      }
      boolean leavesTie = !passes && i < groups.get(g).size() - 1;
      removeWaiting(id);
      int at = boundGroup + 1;
      int upper = boundGroup < 0 ? Integer.MAX_VALUE - 1 : bands.get(boundGroup);
      int band = rank;
      if (at < groups.size()) {
        int nb = bands.get(at);
        band = nb < upper ? Math.min(upper, Math.max(rank, nb + 1)) : upper;
      }
      groups.add(at, new ArrayList<>(List.of(id)));
      bands.add(at, band);
      promoted.remove(id);
      return passes || leavesTie;
    }

    void removeWaiting(long id) {
      int g = groupOf(id);
      groups.get(g).remove(id);
      if (groups.get(g).isEmpty()) {
        groups.remove(g);
        bands.remove(g);
      }
    }
  }

  private final IntFunction<LedgerLine> lines;
  private final FakeClock clock;
  private final Policy policy;
  private final Consumer<Line> checkStorage;

  /**
   * @param lines makes a fresh line of the given capacity, reading {@code clock}
   * @param checkStorage checks what only the implementation can see
   */
  LineModel(
      IntFunction<LedgerLine> lines, FakeClock clock, Policy policy, Consumer<Line> checkStorage) {
    this.lines = lines;
    this.clock = clock;
    this.policy = policy;
    this.checkStorage = checkStorage;
  }

  /**
   * The walk on a fresh line of 1 to 4 slots: {@code steps} random operations, then a drain in
   * which everyone is admitted.
   */
  void run(long seed, int steps) {
    Random rnd = new Random(seed);
    int capacity = 1 + rnd.nextInt(4);
    LedgerLine line = lines.apply(capacity);
    Model m = new Model(capacity);
    List<Long> known = new ArrayList<>();
    long nextId = 1;
    long now = clock.millis();
    for (int step = 0; step < steps; step++) {
      clock.advanceMillis(10);
      now = clock.millis();
      int op = rnd.nextInt(100);
      if (op < 30) { // arrival (sometimes with a VIP pass)
        long id = nextId++;
        boolean vip = rnd.nextInt(10) == 0;
        long o = line.arrive(id, id, "", vip, now, policy);
        if (m.groups.isEmpty() && m.free() > 0) {
          assertEquals(Outcome.ADMITTED, Outcome.kind(o));
          m.inFlight++;
        } else {
          assertEquals(Outcome.WAITING, Outcome.kind(o), "step " + step);
          if (vip && !m.groups.isEmpty()) {
            m.joinTie(0, id);
          } else {
            m.groups.add(new ArrayList<>(List.of(id)));
            m.bands.add(0);
          }
          known.add(id);
        }
      } else if (op < 45 && m.inFlight > 0) { // a request completes
        line.exit(now);
        m.inFlight--;
        m.rebalance();
      } else if (op < 60 && !m.ready.isEmpty()) { // a ready client comes back
        long id = m.ready.remove(rnd.nextInt(m.ready.size()));
        assertEquals(Outcome.ADMITTED, Outcome.kind(line.claim(id, id, now, policy)));
        m.inFlight++;
      } else if (op < 70 && !known.isEmpty()) { // removal (may be gone already)
        long id = known.get(rnd.nextInt(known.size()));
        boolean inModel = m.ready.contains(id) || m.groupOf(id) >= 0;
        assertEquals(inModel, line.remove(id, id, now));
        if (m.ready.remove(id)) {
          m.rebalance();
        } else if (inModel) {
          m.removeWaiting(id);
        }
      } else if (op < 85 && !m.groups.isEmpty()) { // promotion
        long id = pickWaiting(m, rnd);
        int g = m.groupOf(id);
        long target = 1 + rnd.nextInt(m.groups.size());
        Move mv = line.promote(id, id, target);
        assertEquals(g + 1, mv.from());
        if (target < g + 1) {
          m.removeWaiting(id);
          m.joinTie((int) target - 1, id);
          assertEquals(target, mv.to());
        } else {
          assertEquals(mv.from(), mv.to());
        }
      } else if (!m.groups.isEmpty()) { // rank
        long id = pickWaiting(m, rnd);
        int rank = rnd.nextInt(4);
        assertEquals(m.rank(id, rank), line.rank(id, id, rank), "step " + step);
      }
      compare(line, m, step);
    }
    // Drain: everyone is admitted in order and the line ends empty.
    while (m.inFlight > 0 || !m.ready.isEmpty()) {
      if (!m.ready.isEmpty()) {
        long id = m.ready.remove(0);
        assertEquals(Outcome.ADMITTED, Outcome.kind(line.claim(id, id, now, policy)));
        m.inFlight++;
      }
      line.exit(now);
      m.inFlight--;
      m.rebalance();
      compare(line, m, -1);
    }
    assertEquals(0, line.waiting());
    assertEquals(0, line.ready());
    assertTrue(line.tryEnter(), "a newcomer is admitted at once");
  }

  private static long pickWaiting(Model m, Random rnd) {
    List<Long> g = m.groups.get(rnd.nextInt(m.groups.size()));
    return g.get(rnd.nextInt(g.size()));
  }

  private void compare(LedgerLine line, Model m, int step) {
    checkStorage.accept(line.delegate());
    line.checkLedger();
    List<TicketInfo> q = line.queue(Integer.MAX_VALUE);
    List<String> expected = new ArrayList<>();
    for (long id : m.ready) {
      expected.add(Tokens.format(id, id) + "@0");
    }
    for (int g = 0; g < m.groups.size(); g++) {
      for (long id : m.groups.get(g)) {
        expected.add(Tokens.format(id, id) + "@" + (g + 1));
      }
    }
    List<String> actual = new ArrayList<>();
    long previous = 0;
    for (TicketInfo t : q) {
      actual.add(t.token() + "@" + t.position());
      if (t.position() > 0) {
        assertTrue(t.position() - previous <= 1 && t.position() >= previous, "gap at " + step);
        previous = t.position();
      }
    }
    // Ready tickets may be listed in any order the line chose; compare them as a set.
    assertEquals(m.ready.size(), line.ready(), "ready count at step " + step);
    assertEquals(
        expected.subList(m.ready.size(), expected.size()),
        actual.subList(m.ready.size(), actual.size()),
        "waiting order at step " + step);
    assertEquals(
        new HashSet<>(expected.subList(0, m.ready.size())),
        new HashSet<>(actual.subList(0, m.ready.size())),
        "ready set at step " + step);
    assertEquals(m.waiting(), line.waiting());
    assertEquals(m.inFlight, line.inFlight());
  }
}
