package dev.room.engine;

import dev.room.TokenNotFoundException;
import dev.room.spi.LineJournal;
import dev.room.spi.Move;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The promoter: every move of a waiting ticket in the line. Promotions and passes tie into the
 * group at their target, exactly there; ranks insert strictly ahead of lower ranks; the pre-sale
 * draw reorders the arrivals before the sale. Quotes read the same positions without moving.
 *
 * <p>Not thread-safe: every method is called with the owning line's lock held. Keys come from the
 * line's {@link TicketCounter}, so a later move always sorts after an earlier one to the same
 * place: a later payer ties with an earlier one at worst.
 */
final class Promoter {
  /** The highest band a rank moves a ticket into: the one above is {@link Ticket#CALLED}. */
  private static final int MAX_RANKED_BAND = Ticket.CALLED - 1;

  private final LineIndex index;
  private final TokenStore tokens;
  private final TicketCounter counter;
  private final ServingWindow window;

  Promoter(LineIndex index, TokenStore tokens, TicketCounter counter, ServingWindow window) {
    this.index = index;
    this.tokens = tokens;
    this.counter = counter;
    this.window = window;
  }

  /**
   * Puts arrival {@code t} (not in the index) in line: at the back, or with a pass tied into the
   * front group. Returns whether it joined the front.
   */
  boolean place(Ticket t, boolean toFront) {
    Ticket front = toFront ? index.groupAt(1) : null;
    t.state(Ticket.WAITING);
    if (front != null) {
      joinTie(t, front);
      return true;
    }
    t.place = t.number;
    t.order = t.number;
    index.insert(t);
    return false;
  }

  Move promote(long hi, long lo, long target) {
    Ticket t = waitingTicket(hi, lo);
    long from = index.position(t);
    if (target >= from) {
      return new Move(from, from, window.waiting());
    }
    Ticket occupant = index.groupAt(target);
    index.remove(t);
    joinTie(t, occupant);
    window.moved(t, LineJournal.WHY_PROMOTE);
    return new Move(from, index.position(t), window.waiting());
  }

  Move quote(long hi, long lo, long target) {
    Ticket t = waitingTicket(hi, lo);
    long from = index.position(t);
    return new Move(from, Math.min(from, target), window.waiting());
  }

  /**
   * Ties {@code t} (not in the index) into the group headed by {@code head}: behind the members
   * promoted into it before, ahead of the member holding the place, which takes a fresher order.
   */
  private void joinTie(Ticket t, Ticket head) {
    t.band = head.band;
    t.place = head.place;
    t.promoted(true);
    t.order = counter.next();
    Ticket last = index.before(head.band, head.place, Long.MAX_VALUE);
    if (last != null && last.sameGroup(t) && !last.promoted()) {
      index.remove(last);
      index.insert(t);
      last.order = counter.next();
      index.insert(last);
      window.moved(last, LineJournal.WHY_TIE);
    } else {
      index.insert(t);
    }
  }

  /**
   * Records the rank, then moves the ticket forward past every ticket whose recorded rank is lower,
   * up to the nearest one ahead holding an equal or higher rank (restored ready tickets count as
   * the highest). A tie is never split by someone passing it: a ticket stops behind the whole group
   * of the one it may not pass. Only tickets in bands at least {@code rank} can hold such a rank (a
   * band is never below its tickets' ranks), so the walk back covers the ranked part of the line
   * only.
   */
  boolean rank(long hi, long lo, int rank) {
    Ticket t = waitingTicket(hi, lo);
    t.rank = rank;
    int floor = Math.min(rank, MAX_RANKED_BAND);
    Ticket bound =
        t.band >= floor ? index.before(t) : index.before(floor - 1, Long.MIN_VALUE, Long.MIN_VALUE);
    while (bound != null && bound.rank < rank && bound.band != Ticket.CALLED) {
      bound = index.before(bound);
    }
    Ticket pred = index.before(t);
    boolean passes = pred != null && (bound == null || !pred.sameGroup(bound));
    if (!passes && floor <= t.band) {
      return false;
    }
    // Not passing anyone but rising above its band: the ticket keeps its position and leaves
    // its tie to stand ahead of its (lower-ranked) tie-mates, so its band covers its rank again.
    boolean leavesTie = !passes && t.sameGroup(index.after(t));
    index.remove(t);
    placeBehind(t, bound, floor);
    return passes || leavesTie;
  }

  /**
   * Inserts {@code t} as a group of its own right behind {@code bound}'s group (at the front when
   * null), in a band of at least {@code floor}. Keys are whole numbers, so when the next group is
   * in the same band the rest of that band is re-keyed behind {@code t}, in its order.
   */
  private void placeBehind(Ticket t, Ticket bound, int floor) {
    Ticket next =
        bound == null
            ? index.first()
            : index.after(Ticket.probe(bound.band, bound.place, Long.MAX_VALUE));
    int upper = bound == null ? MAX_RANKED_BAND : Math.min(bound.band, MAX_RANKED_BAND);
    int band;
    if (next == null) {
      band = floor;
    } else if (next.band < upper) {
      band = Math.min(upper, Math.max(floor, next.band + 1));
    } else {
      band = upper;
    }
    List<Ticket> rest = new ArrayList<>();
    for (Ticket n = next; n != null && n.band == band; n = index.after(n)) {
      rest.add(n);
    }
    rest.forEach(index::remove);
    t.band = band;
    t.place = counter.next();
    t.order = t.place;
    t.promoted(false);
    index.insert(t);
    window.moved(t, LineJournal.WHY_RANK);
    long oldPlace = Long.MIN_VALUE;
    long place = counter.current();
    for (Ticket n : rest) {
      if (n.place != oldPlace) {
        oldPlace = n.place;
        place = counter.next();
      }
      n.place = place;
      index.insert(n);
      window.moved(n, LineJournal.WHY_RANK);
    }
  }

  /**
   * Reorders the arrivals not yet moved (band 0, not promoted) by the draw {@code order}, a
   * permutation of their line order; they take the same set of places between them. Returns how
   * many were drawn.
   */
  int drawPresale(IntFunction<int[]> order) {
    List<Ticket> group = new ArrayList<>();
    index.forEach(
        Integer.MAX_VALUE,
        t -> {
          if (t.band == 0 && !t.promoted()) {
            group.add(t); // in line order: ascending place, here equal to arrival order
          }
        });
    int n = group.size();
    int[] drawn = order.apply(n);
    checkPermutation(drawn, n);
    long[] sorted = new long[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = group.get(i).place;
    }
    long[] numbers = new long[n];
    for (int i = 0; i < n; i++) {
      numbers[i] = group.get(i).number;
    }
    window.journal.drawn(numbers);
    group.forEach(index::remove);
    // Clients tied to a group member's place (promotions, passes) stay tied to that place, in
    // their order, and whoever draws it holds it behind them: it takes a fresher order.
    for (int k = 0; k < n; k++) {
      Ticket t = group.get(drawn[k]);
      t.place = sorted[k];
      Ticket last = index.before(0, t.place, Long.MAX_VALUE);
      if (last != null && last.sameGroup(t)) {
        t.order = counter.next();
      }
      index.insert(t);
      window.moved(t, LineJournal.WHY_DRAW);
    }
    return n;
  }

  private static void checkPermutation(int[] p, int n) {
    if (p == null || p.length != n) {
      throw new IllegalArgumentException("the draw must order exactly " + n + " arrivals");
    }
    boolean[] seen = new boolean[n];
    for (int i : p) {
      if (i < 0 || i >= n || seen[i]) {
        throw new IllegalArgumentException("the draw is not a permutation");
      }
      seen[i] = true;
    }
  }

  private Ticket waitingTicket(long hi, long lo) {
    Ticket t = tokens.get(hi, lo);
    if (t == null) {
      throw new TokenNotFoundException();
    }
    if (t.state() != Ticket.WAITING) {
      throw new IllegalStateException("the client was already told it is ready");
    }
    return t;
  }
}
