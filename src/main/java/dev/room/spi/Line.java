package dev.room.spi;

import dev.room.TicketInfo;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The state of one line: its slots, its waiting tickets and its VIP passes.
 *
 * <p>Every method is atomic with respect to every other. Tokens are passed as their two 64-bit
 * halves (see {@link Tokens}); times are epoch milliseconds read by the caller from the room's
 * clock. Hot-path results are packed {@code long}s decoded by {@link Outcome}.
 *
 * <p>Slots are handed over, never raced for: when a slot frees while clients wait, it goes to the
 * first of them who is <em>present</em>, who becomes ready (is offered the slot) and keeps it
 * reserved until it comes back or its offer lapses ({@link Policy#offerLapsed}). So a client told
 * it is ready always finds its slot, and a newcomer can take a slot only when nobody waits.
 *
 * <p>Presence. A waiting client is away when it has not been heard from since an import ({@link
 * #restore}) or since its offer lapsed; otherwise present. An away client keeps its place (and
 * counts in the positions of everyone behind, so nobody's position rises when it comes back) but
 * loses its turn: slots go to the first present client. A poll or claim makes it present again, and
 * since it stands ahead it is offered the next slot that frees, at once if one is free. A lapsed
 * offer never ends a ticket; only expiry (TTL, first-poll grace) or removal does. So among clients
 * who keep polling admission is in line order, a client who looks away for a while keeps its place
 * until its TTL, and a slot is never held long for a client who is not there.
 *
 * <p>Absence (issue 16, keep the origin busy). With a {@linkplain Policy#presenceWindow() presence
 * window} in force ({@link #lapseAbsent}), a waiting client not heard from for the window is also
 * away: it is passed over when a slot is handed on (keeping its place, present again at its next
 * poll), and an offer it was not told of yet lapses. Pages near the front poll every second or hold
 * a status request, so a client silent that long has most likely left, and its slot would otherwise
 * sit idle for the whole offer timeout.
 *
 * <p>Admissions are also metered by an {@linkplain #allowance() allowance}: every slot handed to a
 * waiter and every fast-path entry uses one. The room sets it to {@link #UNLIMITED} (the default:
 * capacity alone decides), to 0 to hold the line (a pause: freed slots stay free and everyone keeps
 * their place) or to a small number it tops up over time (an admission rate). The allowance lives
 * in the line so that the decision to hand a slot over and the use of the allowance are one atomic
 * step.
 */
public interface Line extends AutoCloseable {

  /** An allowance without limit: capacity alone decides who is admitted. */
  long UNLIMITED = Long.MAX_VALUE;

  /** The number of slots. */
  int capacity();

  /** Changes the number of slots; growing hands the new slots to waiting clients at once. */
  void setCapacity(int capacity, long now);

  /** Requests holding a slot now. */
  int inFlight();

  /** Free slots now (negative after a shrink while slots were held). */
  int freeSlots();

  /** Tickets waiting (position ≥ 1). */
  long waiting();

  /** Tickets told they are ready and not yet back. */
  long ready();

  /** Tickets waiting or ready, read together (one round trip on a shared line). */
  default long live() {
    return waiting() + ready();
  }

  /**
   * Whether any slot has ever been taken, any ticket issued or any pass granted (a used line
   * refuses a {@link #restore}).
   */
  boolean used();

  /**
   * The admissions the line may still make: slots handed to waiting clients and fast-path entries
   * each use one. {@link #UNLIMITED} means no limit; 0 holds the line. Clients already told they
   * are ready keep their reserved slot whatever the allowance.
   */
  long allowance();

  /**
   * Sets the allowance ({@code >= 0}, or {@link #UNLIMITED}); when it allows, hands free slots to
   * the first in line at once.
   */
  void setAllowance(long allowance, long now);

  /**
   * Sets the allowance as {@link #setAllowance} does and returns the one it replaced, both in one
   * atomic step, so no admission in between is counted twice or not at all (a hold takes back the
   * tokens it will give back when it ends). The default is two steps; the lines here override it.
   */
  default long replaceAllowance(long allowance, long now) {
    long was = allowance();
    setAllowance(allowance, now);
    return was;
  }

  /**
   * Adds {@code n} to a limited allowance, keeping it at most {@code max}, then hands free slots to
   * the first in line. An {@link #UNLIMITED} allowance stays unlimited.
   */
  void addAllowance(long n, long max, long now);

  /**
   * Holds the line, or lifts the hold. Held, the allowance is 0 and neither {@link #setAllowance}
   * nor {@link #addAllowance} changes it, so a pause set by one room on a shared line is never
   * undone by another room's refill or setting; lifted, the allowance stays 0 until set. The
   * default does nothing: on a line only one room uses, the allowance of 0 a hold sets suffices.
   */
  default void hold(boolean held, long now) {}

  // rate bucket (u1-rate)
  /**
   * Meters admissions with the line's own token bucket, one for every room on the line: it holds at
   * most {@code burst} admissions and gains {@code perSecond} a second, and the whole admissions it
   * holds are the {@linkplain #allowance() allowance}. So n rooms on a shared line rated r admit r
   * a second between them, not n·r. A new bucket starts full; a new rate on a metered line keeps
   * what the bucket holds (refilled at the old rate up to {@code now}, capped at the new burst).
   * While the line is {@linkplain #hold held} the allowance is 0 and the bucket keeps its content
   * and goes on filling; lifting the hold gives the content back. A rate of 0 stops metering (the
   * allowance is then unlimited, unless held), and so does {@link #setAllowance}. Returns what
   * {@link #refill} returns.
   *
   * <p>The default meters nothing and refuses a rate: a line shared by several rooms must keep the
   * bucket itself, or each room's refills would add up.
   *
   * @throws IllegalArgumentException when {@code perSecond} is negative, not finite, or positive
   *     with a burst below 1
   * @throws IllegalStateException when a rate is set on a line that keeps no bucket (this default)
   */
  default long meter(double perSecond, long burst, long now) {
    if (perSecond > 0) {
      throw new IllegalStateException(
          getClass().getName()
              + " keeps no admission-rate bucket: implement Line.meter and Line.refill to set an"
              + " admission rate on it");
    }
    return Long.MAX_VALUE;
  }

  /**
   * Adds to the {@linkplain #meter bucket} what accrued since its last refill, whichever room made
   * it, reckoned on the caller's {@code now}: a {@code now} before the last refill adds nothing and
   * moves nothing back, so the refills of any number of rooms add {@code r·t} in all over t (the
   * fraction left carries over; a full bucket carries none). Then hands free slots over as far as
   * the allowance goes. Held, the bucket fills but the allowance stays 0: a pause always wins over
   * a refill. Returns when the next whole admission accrues (a refill before then adds nothing), or
   * {@link Long#MAX_VALUE} when the line is not metered.
   */
  default long refill(long now) {
    return Long.MAX_VALUE;
  }

  // end rate bucket

  /**
   * The sale controls shared by every room on this line, or null when only one room uses it (the
   * room then keeps them itself).
   */
  default Controls controls() {
    return null;
  }

  // pre-sale and health-driven capacity across the fleet (u2-sale)
  /**
   * The pre-sale shared by every room on this line, or null when only one room uses it (the room
   * then keeps it itself, drawing on this line).
   */
  default PresaleStore presales() {
    return null;
  }

  /**
   * The window of request samples every room on this line feeds its health-driven capacity from, or
   * null when only one room uses it (the room then keeps its own).
   */
  default HealthWindow healthWindow() {
    return null;
  }

  /**
   * Takes a slot if nobody waits, one is free and the allowance is not used up. Never blocks. On
   * success the caller must call {@link #exit(long)} exactly once.
   */
  boolean tryEnter();

  /** Gives a slot back; hands it to the first waiting client if there is one. */
  void exit(long now);

  /**
   * Queues a new ticket. Returns {@link Outcome#ADMITTED} (the caller holds a slot and the token
   * was not stored), {@link Outcome#WAITING} with its position, or {@link Outcome#REJECTED} when
   * the line is at {@link Policy#maxQueueDepth()}.
   *
   * @param toFront whether the arrival carries a valid VIP pass and joins the front group
   */
  long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy policy);

  // identity (one place per person)
  /**
   * Queues a new ticket bound to {@code identity}, or, when the identity already holds a live
   * place, moves that place to this arrival's token in the same atomic step: the outcome carries
   * {@link Outcome#REJOINED} and the place's standing as a reload would see it (waiting with its
   * position, or {@link Outcome#ADMITTED} when it was ready), no ticket is issued, and the token it
   * was held under reads {@link Outcome#MOVED} from then on (for the policy's TTL). So two
   * concurrent arrivals with one identity converge on one ticket. An expired place is retired and a
   * fresh ticket issued. A null or blank identity is an anonymous arrival, exactly {@link
   * #arrive(long, long, String, boolean, long, Policy)}. The identity is kept only as a salted hash
   * ({@link Identities}), and released when its ticket ends.
   */
  default long arrive(
      long hi,
      long lo,
      String identity,
      String clientKey,
      boolean toFront,
      long now,
      Policy policy) {
    if (!Identities.anonymous(identity)) {
      // a room refuses an identity function over such a line (keepsIdentities), so this is a bug
      throw new IllegalStateException(getClass().getName() + " keeps no identities");
    }
    return arrive(hi, lo, clientKey, toFront, now, policy);
  }

  /**
   * Queues a new ticket, as {@link #arrive(long, long, String, String, boolean, long, Policy)} (a
   * null {@code identity} for an anonymous arrival), under a token the line may finish: {@code
   * token} comes in as a fresh random {hi, lo}, the line may replace the low 32 bits of {@code
   * token[1]} before it stores the token, and the caller gives the client the token as it is after
   * the call. The other 96 bits stay random, so the token stays unguessable. The in-memory line
   * writes there the number of the record it files the ticket in, so a status poll finds it in one
   * memory read instead of a hash-table search; the default changes nothing.
   */
  default long arrive(
      long[] token, String identity, String clientKey, boolean toFront, long now, Policy policy) {
    return identity == null
        ? arrive(token[0], token[1], clientKey, toFront, now, policy)
        : arrive(token[0], token[1], identity, clientKey, toFront, now, policy);
  }

  /**
   * Whether this line keeps identities ({@link #arrive(long, long, String, String, boolean, long,
   * Policy)}); a room refuses an identity function over a line that does not, at configuration
   * rather than on a visitor's request.
   */
  default boolean keepsIdentities() {
    return false;
  }

  /**
   * The salt this line hashes identities with ({@link Identities#hash}), or null while it has
   * hashed none; an export carries it so that the identities it holds match again after an import.
   */
  default String identitySalt() {
    return null;
  }

  /**
   * {@link #restore(Iterator, Iterator, long)} with the identity salt of the export ({@code null}
   * when it had none): the entries' identity hashes bind their tickets again.
   */
  default int restore(
      Iterator<LineEntry> tickets, Iterator<long[]> passes, String identitySalt, long now) {
    if (identitySalt != null) {
      throw new IllegalStateException(
          getClass().getName()
              + " keeps no identities, and this export binds tickets to identities: import it"
              + " into the in-memory line or a RedisLine");
    }
    return restore(tickets, passes, now);
  }

  // end identity

  /** A status poll: keeps the ticket alive and reports where it stands. */
  long poll(long hi, long lo, long now, Policy policy);

  /**
   * A returning client: claims the reserved slot of a ready ticket ({@link Outcome#ADMITTED}; the
   * caller then holds a slot), or reports the position of a waiting one. A waiting page reload is a
   * poll in disguise: a waiting ticket's claim counts as its last poll, and within the poll
   * interval of an earlier such claim is {@link Outcome#RATE_LIMITED} (a status poll just before
   * does not count against it); a ready ticket's claim is never limited.
   */
  long claim(long hi, long lo, long now, Policy policy);

  /** Retires one ticket; false when it is not in line. */
  boolean remove(long hi, long lo, long now);

  /** Retires every ticket that {@code match} selects; the predicate runs outside the lock. */
  int removeIf(Predicate<TicketInfo> match, long now);

  /**
   * Moves a waiting ticket to {@code target}, tying with the client there: within the tie it is
   * called behind the clients promoted there before it and ahead of the client holding the place. A
   * target at or behind the ticket's position moves nothing.
   *
   * @throws dev.room.TokenNotFoundException when the token is not in line
   * @throws IllegalStateException when the ticket was already told it is ready
   */
  Move promote(long hi, long lo, long target);

  /**
   * Records a rank, then moves the ticket forward past every ticket whose recorded rank is lower,
   * up to the nearest ticket ahead holding an equal or higher rank, behind that ticket's whole tie.
   * Ordering reads bands; a band is never below the ranks of the tickets in it, and a lowered rank
   * keeps its band (the ticket does not move back) while later rank moves compare with the recorded
   * rank. Returns true only when the ticket passed someone, or left a tie to stand ahead of its
   * lower-ranked tie-mates.
   */
  boolean rank(long hi, long lo, int rank);

  /** The position a ticket would reach if promoted now, without moving it. */
  Move quote(long hi, long lo, long target);

  /**
   * The pre-sale draw: gives the pre-sale group new places, in one atomic step. The group is every
   * waiting ticket that never moved (band 0, holding its place: no promotion, pass or rank), taken
   * in arrival order (ascending order). {@code order.apply(n)} returns, for each new position k (0
   * = first), the index in arrival order of the ticket that takes it; the group's own places are
   * handed out again in that order, so everyone outside the group keeps their place (clients tied
   * into a group member's place stay tied to it, ahead of whoever draws it). Returns n. {@code
   * order} may be asked more than once (for a new n) and must be a pure function of n.
   *
   * @throws IllegalArgumentException when {@code order} is not a permutation of 0..n-1; nothing
   *     moves
   */
  int drawPresale(IntFunction<int[]> order, long now);

  /** The first {@code limit} clients in line, ready ones first. */
  List<TicketInfo> queue(int limit);

  /** One client, or null. */
  TicketInfo ticket(long hi, long lo);

  /**
   * One reaper pass: retires expired and never-seen tickets, waiting or ready, and lapses offers
   * whose client did not come in time (the ticket waits again at its place, away). Freed slots go
   * only to live, present clients. Returns {evicted, timedOut}: tickets retired, and lapsed offers
   * whose client had been told it was ready.
   */
  int[] evict(long now, Policy policy);

  /**
   * Puts {@code policy}'s {@linkplain Policy#presenceWindow() presence window} in force (0 turns
   * absence off) and applies it now: each offer not yet told to its client lapses when that client
   * has not been heard from for the window (it waits again at its place, away) and its slot goes to
   * the first present client. From this call on, a slot handed on passes over waiters silent for
   * the window. Cheap (it looks at the offers outstanding only): the room calls it a few times a
   * window. Returns how many offers lapsed. The default does nothing: absence is off.
   */
  default int lapseAbsent(long now, Policy policy) {
    return 0;
  }

  /** Records a VIP pass valid until {@code expiresAt}. */
  void grantPass(long hi, long lo, long expiresAt);

  /** The expiry of a pass, or 0 when unknown. */
  long passExpiry(long hi, long lo);

  /** Forgets passes expired at {@code now}; returns how many. */
  int sweepPasses(long now);

  /**
   * Streams every ticket to {@code tickets} in line order (ready ones first) and every pass to
   * {@code passes} as {token hi, token lo, expiresAt}. Reads in chunks, so traffic is not held up;
   * export after serving has stopped for an exact snapshot.
   */
  void export(Consumer<LineEntry> tickets, Consumer<long[]> passes);

  // join guard (r3-guard)
  /**
   * Where the room's join limits and spent challenges live when this line is shared by several
   * instances; null (the default) for a line only this process sees.
   */
  default JoinLedger joinLedger() {
    return null;
  }

  /**
   * Replaces an unused line with {@code tickets} (in line order) and {@code passes}, all or
   * nothing: if either iterator throws, the line is left as it was. Ready tickets come first and
   * stay first, in their order, whatever their band; later arrivals, promotions and ranks get
   * places and tie orders above every one restored. Every restored client is away until it polls;
   * the free slots are offered to the first in line all the same (nothing is in flight after an
   * import), and an offer to a client still away lapses after {@link Policy#awayOfferWindow()},
   * passing the slot to the next present client. An export afterwards writes every restored ticket
   * as it was read (ready ones as ready, whether or not they got a slot). Returns the number of
   * tickets restored.
   *
   * @throws IllegalStateException when the line has already been used
   */
  int restore(Iterator<LineEntry> tickets, Iterator<long[]> passes, long now);

  /**
   * Reports every change of order to {@code journal} from now on, inside the step that makes it,
   * for an admission log ({@link LineJournal#NONE} stops). Returns false when this line cannot (the
   * default): the room then logs only what it observes.
   */
  default boolean journal(LineJournal journal) {
    return false;
  }

  @Override
  void close();

  /**
   * The store of admission sessions every instance on this line shares, or empty for a line of one
   * instance (the room then keeps its sessions in memory). A shared line must offer one, so that a
   * session's slot, a grant and its revocation mean the same on every instance.
   */
  default Optional<SessionStore> sharedSessions() {
    return Optional.empty();
  }

  /**
   * The settings every room on this line must hold alike, recorded where every instance reads them;
   * null (the default) for a line only this process sees.
   */
  default FleetSettings fleetSettings() {
    return null;
  }

  /**
   * How often this instance found that the line's store had lost the room's state (a Redis restart
   * without persistence), the waiting clients' places with it; 0 (the default) for a line that
   * cannot lose it while the process runs.
   */
  default long stateLosses() {
    return 0;
  }
}
