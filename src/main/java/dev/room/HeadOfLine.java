package dev.room;

import dev.room.Admission.Queued;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Keeps the origin busy (issue 16): the head of the line hears of a freed slot at once instead of
 * at its next poll.
 *
 * <p>Three rules, each measured by {@code benchmarks/SoakBenchmark}:
 *
 * <ul>
 *   <li>Pace: a client within the {@linkplain #band band} of the front polls every second (the
 *       page's floor); further back soon enough to be in the band when the line reaches it. The
 *       front is the first client still polling ({@link Front}), not position 1: pages that stopped
 *       keep their places ahead of it until their tickets expire.
 *   <li>Held polls: a status request with {@code wait=1} from that band is held (Servlet async, no
 *       thread kept) for up to {@value #HOLD_MILLIS} ms and answered the moment its client is
 *       offered a slot: when a slot frees on this instance the held requests are re-polled in line
 *       order (kept by key: the position plus the admissions seen here, re-keyed on every wake),
 *       stopping {@value #LOOKAHEAD} past the first still waiting (offers go in line order). At
 *       most the band (and {@value #MAX_HELD}) are held; beyond that a poll is answered at once. A
 *       held request that times out is polled again (its client was there all along) and answered
 *       with {@code poll_after_ms} 0: the page polls again at once (it starts at most one poll a
 *       second).
 *   <li>Presence: a waiting client silent for {@value #PRESENCE_WINDOW_MILLIS} ms (two held polls
 *       and more than every poll gap near the front) is passed over when a slot frees, and an offer
 *       it was not told of lapses then ({@link dev.room.spi.Policy#presenceWindow()}): a page that
 *       stopped polling no longer holds a slot for the whole offer timeout.
 * </ul>
 */
final class HeadOfLine {
  /** The band, in multiples of capacity, that polls fast and may hold a status request. */
  static final int HOLD_BAND = 4;

  /** How long a status request is held at most. */
  static final long HOLD_MILLIS = 1000;

  /** The poll pace within the band: the page's floor, and the line's poll interval. */
  static final long FRONT_POLL_MILLIS = 1000;

  /** A waiting client silent this long counts as gone (see the class notes). */
  static final long PRESENCE_WINDOW_MILLIS = 2000;

  /** Held requests per room at most, whatever the capacity. */
  static final int MAX_HELD = 1000;

  /** The query parameter that asks for a held status request. */
  static final String WAIT_PARAMETER = "wait";

  /** Re-polls of the held on the status path, at most this often (frees elsewhere, lapses). */
  private static final long WAKE_GAP_MILLIS = 50;

  private final List<HeldPoll> held = new ArrayList<>(); // by key, front first; guarded by this
  private volatile int count;
  private volatile long wokenAt;
  private volatile long holdMillis = HOLD_MILLIS;

  /**
   * Clients admitted on this instance so far. A held client's key is its position plus this count
   * when it was heard from: positions of clients heard at different times are not comparable (one
   * held at 3 a second ago may now stand ahead of one just held at 2), keys are, as far as the line
   * moved by admissions seen here. What else moves it (retirements ahead, admissions on other
   * instances) is made up for by re-keying on every wake and looking {@value #LOOKAHEAD} past the
   * first still waiting.
   */
  private final LongAdder departed = new LongAdder(); // every fast-path admission counts

  /** A wake re-polls this many still-waiting held requests before it stops (see departed). */
  static final int LOOKAHEAD = 2;

  /**
   * How far back the front reaches, in seconds of admissions: the line moves this far while a
   * client further back waits for its next poll, so a client is in the front before its turn.
   */
  static final long BAND_SECONDS = 4;

  /** The band, in multiples of capacity, while the admission rate is not measured yet. */
  static final int UNMEASURED_BAND = 16;

  /**
   * The front, in positions: {@value #HOLD_BAND} × capacity, or {@value #BAND_SECONDS} s of the
   * measured admission rate if more (at 20 slots and 275 ms requests the line moves 70 places a
   * second: a band of 80 is passed in a second, faster than the back polls, and its clients were
   * offered before they were ever held, the slot idle until their next poll), or {@value
   * #UNMEASURED_BAND} × capacity while the rate is unknown; at most {@value #MAX_HELD}.
   */
  static long band(int capacity, double rate) {
    long b = (long) HOLD_BAND * capacity;
    if (rate > 0) {
      b = Math.max(b, (long) Math.ceil(rate * BAND_SECONDS));
    } else {
      b = (long) UNMEASURED_BAND * capacity; // before the rate is known: requests of 250 ms
    }
    return Math.min(b, MAX_HELD);
  }

  /**
   * The poll pace for {@code position}, given the pace {@code told} by the sale's rules: every
   * second within the band; behind it, soon enough to be in the band when the line reaches it (half
   * the time the line takes to get there at {@code rate}).
   */
  static long pollAfter(long told, long position, long band, double rate) {
    if (position <= 0) {
      return told;
    }
    if (position <= band) {
      return Math.min(told, FRONT_POLL_MILLIS);
    }
    if (rate > 0) {
      long reach = (long) ((position - band) / rate * 1000 / 2);
      return Math.min(told, Math.max(FRONT_POLL_MILLIS, reach));
    }
    return told;
  }

  /** {@link #band} for {@code room} now. */
  static long band(WaitingRoom room) {
    return band(room.capacity(), room.sale().measuredRate(room.clock().millis()));
  }

  /** Requests held now. */
  int held() {
    return count;
  }

  /** A client was admitted on this instance: the line moved one place. */
  void departed() {
    departed.increment();
  }

  private final Front front = new Front(); // the first client still polling, seen here

  /** A waiting client polled at {@code position}. Racy by design: a lost update is harmless. */
  void observe(long position, long now) {
    front.observe(position, now);
  }

  /** {@code position} counted from the first present client (1 for it and anyone ahead). */
  long fromFront(long position, long now) {
    return front.fromFront(position, now);
  }

  /** For tests: how long a request is held. */
  void holdMillis(long millis) {
    holdMillis = millis;
  }

  /**
   * Holds waiting {@code q}'s status request if it asked to be held, stands within the band and
   * there is room; returns false to have it answered at once.
   */
  boolean hold(WaitingRoom room, HttpServletRequest req, HttpServletResponse res, Queued q) {
    long position = q.position();
    if (!q.waiting()
        || position <= 0
        || fromFront(position, room.clock().millis()) > band(room)
        || !"1".equals(req.getParameter(WAIT_PARAMETER))
        || !req.isAsyncSupported()) {
      return false;
    }
    HeldPoll h;
    synchronized (this) {
      if (count >= band(room)) {
        return false;
      }
      // A poll sooner than the poll interval is held too: a wake's re-poll counts as the client's
      // poll, so the page's next one, at once, always comes too soon, and answering it 429 would
      // leave the front unheld for a second, a slot offered meanwhile idle. Holding is its own
      // pace (one request a hold); only a second request of a client already held is refused.
      if (q.reload() && holds(q.token())) {
        return false;
      }
      AsyncContext ctx = req.startAsync(req, res);
      ctx.setTimeout(holdMillis);
      if (q.refreshCookies()) {
        // before a wake can see the request: from then on only the one holding it writes to it
        Cookies.sendTicket(req, res, room, q.token());
      }
      h = new HeldPoll(this, room, req, res, ctx, q, position + departed.sum());
      int i = held.size();
      while (i > 0 && held.get(i - 1).key > h.key) {
        i--;
      }
      held.add(i, h);
      count = held.size();
      ctx.addListener(h);
    }
    return true;
  }

  /** Whether a request of {@code token}'s client is held. Caller holds the monitor. */
  private boolean holds(String token) {
    for (HeldPoll h : held) {
      if (h.queued.token().equals(token)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A slot may have been offered: re-polls the held front to back and answers each offered one,
   * stopping at the first still waiting.
   */
  void slotFreed() {
    if (count == 0) {
      return;
    }
    // One thread walks the held at a time: a wake re-polls, and a re-poll may free a slot (an
    // absent offer lapses) and ask for a wake from inside another held request's monitor; walking
    // from there would take held requests' monitors in any order. A wake asked for meanwhile makes
    // the walker go round once more, a bounded number of times (Walker).
    walker.walk(wakeFront);
  }

  private final Walker walker = new Walker();
  private final Runnable wakeFront = this::wakeFront;

  private void wakeFront() {
    // Offers go in line order: behind the first held still waiting nobody was offered, as far as
    // the keys are right; a few more are looked at for where they are not.
    int i = 0;
    boolean rekeyed = false;
    for (int misses = 0; misses <= LOOKAHEAD; ) {
      HeldPoll h;
      synchronized (this) {
        if (i >= held.size()) {
          break;
        }
        h = held.get(i);
      }
      long position = h.answerIfOffered();
      if (position < 0) {
        continue; // answered and gone from the list: the same index holds the next one
      }
      synchronized (this) {
        h.key = position + departed.sum();
        int at = held.indexOf(h); // an earlier one may have gone meanwhile (a timeout, an error)
        if (at >= 0) {
          i = at;
        }
      }
      rekeyed = true;
      misses++;
      i++;
    }
    if (rekeyed) {
      resort();
    }
  }

  /** Insertion sort by key: the list is sorted but for the few re-keyed; allocates nothing. */
  private synchronized void resort() {
    for (int i = 1; i < held.size(); i++) {
      HeldPoll h = held.get(i);
      int j = i;
      while (j > 0 && held.get(j - 1).key > h.key) {
        held.set(j, held.get(j - 1));
        j--;
      }
      held.set(j, h);
    }
  }

  /** A status poll was answered: re-polls the held now and then, for offers made elsewhere. */
  void polled(WaitingRoom room) {
    long now = room.clock().millis();
    // the gap first: on Redis the offers outstanding are a round trip
    if (count != 0 && now - wokenAt >= WAKE_GAP_MILLIS && room.outstandingOffers() > 0) {
      wokenAt = now;
      slotFreed();
    }
  }

  /** Drops {@code h} from the held list: it was answered or ended. */
  synchronized void remove(HeldPoll h) {
    held.remove(h);
    count = held.size();
  }
}
