package dev.room.engine;

import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;

/**
 * The ticket desk: where a client meets the line. An arrival takes a ticket from the {@link
 * TicketCounter} and a place from the {@link Promoter}; a status poll keeps its ticket alive
 * (sliding lifetime, poll rate limit, cookie refresh, the first "ready"); a reload claims the slot
 * a ready ticket holds. Either way an expired ticket is retired, a lapsed offer lapses and an away
 * client is present again. Nothing here allocates except an arrival's ticket.
 *
 * <p>Not thread-safe: every method is called with the owning line's lock held.
 */
final class TicketDesk {
  private final TokenStore tokens;
  private final LineIndex index;
  private final TicketCounter counter;
  private final ServingWindow window;
  private final Retirement retirement;
  private final Promoter promoter;
  private final IdentityBook identities;

  TicketDesk(
      TokenStore tokens,
      LineIndex index,
      TicketCounter counter,
      ServingWindow window,
      Retirement retirement,
      Promoter promoter,
      IdentityBook identities) {
    this.identities = identities;
    this.tokens = tokens;
    this.index = index;
    this.counter = counter;
    this.window = window;
    this.retirement = retirement;
    this.promoter = promoter;
  }

  /**
   * Issues a ticket to an arrival: queued, or admitted at once if a slot is free for it. With an
   * identity ({@code identity} its hash, null for none) that holds a live place, the place moves to
   * this arrival's token instead: one place per identity, decided in this one step. With {@code
   * mint}, the line chooses the low 32 bits of {@code token[1]} (the record it files the token in)
   * and the caller gives the client the token as it is after the call.
   */
  long arrive(
      long[] token,
      boolean mint,
      String identity,
      String clientKey,
      boolean toFront,
      long now,
      Policy p) {
    long evicted = 0;
    if (identity != null) {
      Ticket held = identities.holder(identity);
      if (held != null && Retirement.expired(held, now, p)) {
        retirement.retire(held, now, LineJournal.EXPIRE); // frees the identity: a fresh ticket
        evicted = Outcome.EVICTED;
      } else if (held != null) {
        if (mint) {
          token[1] = TokenStore.naming(token[1], held.rec());
        }
        return takeOver(held, token[0], token[1], now, p);
      }
    }
    if (mint) {
      token[1] = TokenStore.naming(token[1], tokens.nextRecord());
    }
    return evicted | issue(token[0], token[1], identity, clientKey, toFront, now, p);
  }

  private long issue(
      long hi, long lo, String identity, String clientKey, boolean toFront, long now, Policy p) {
    if (p.maxQueueDepth() > 0 && window.waiting() >= p.maxQueueDepth()) {
      return Outcome.of(Outcome.REJECTED, 0, 0);
    }
    Ticket t = tokens.issue(hi, lo, counter.next());
    if (t == null) {
      return Outcome.of(Outcome.UNKNOWN, 0, 0); // a 2^-128 collision: the caller retries
    }
    if (identity != null) {
      identities.bind(t, identity);
    }
    t.issuedAt(counter.issuedAt(now));
    t.lastActivity(now);
    t.cookiesSentAt(now);
    t.clientKey = clientKey;
    t.hasPass(toFront);
    boolean front = promoter.place(t, toFront);
    window.journal.record(
        LineJournal.ARRIVE, t.number, t.band, t.place, t.order, ServingWindow.keyFlags(t));
    window.queued();
    window.rebalance(now);
    if (t.state() == Ticket.READY) {
      window.admitReady(t);
      return Outcome.of(Outcome.ADMITTED, 0, 0);
    }
    return Outcome.of(Outcome.WAITING, index.position(t), front ? Outcome.PROMOTED : 0);
  }

  /**
   * The identity's place goes to a new device: filed under its token, the old token remembered as
   * moved, then seen as a reload from the new device sees it (a ready place is admitted at once).
   */
  private long takeOver(Ticket held, long hi, long lo, long now, Policy p) {
    if (tokens.get(hi, lo) != null) {
      return Outcome.of(Outcome.UNKNOWN, 0, 0); // a 2^-128 collision: the caller retries
    }
    long oldHi = held.hi();
    long oldLo = held.lo();
    tokens.rekey(held, hi, lo);
    identities.moved(oldHi, oldLo, now);
    held.reloaded(false); // the new device's first load is never a too-early reload
    return claim(hi, lo, now, p) | Outcome.REJOINED;
  }

  /**
   * A status poll: keeps the ticket alive, rate-limits it, tells it when it is ready. It reads and
   * writes the ticket's record only, by record number: the ticket object (a second cache miss at 10
   * million waiting) is read only on the paths that change the line (expiry, a lapsed offer, an
   * away client back, the first "ready").
   */
  long poll(long hi, long lo, long now, Policy p) {
    int r = tokens.find(hi, lo);
    if (r < 0) {
      return gone(hi, lo);
    }
    TicketRecords rs = tokens.records;
    if (Retirement.expired(rs, r, now, p)) {
      return retirement.retireExpired(rs.owner(r), now);
    }
    long flags = rs.state(r) == Ticket.READY ? window.lapseIfDue(rs.owner(r), now, p) : 0;
    if (rs.is(r, Ticket.POLLED) && now - rs.get(r, TicketRecords.LAST_POLL) < p.pollInterval()) {
      flags |= Outcome.RATE_LIMITED;
    } else {
      rs.set(r, TicketRecords.LAST_POLL, now);
      rs.flag(r, Ticket.POLLED, true);
      rs.flag(r, Ticket.RELOADED, false);
    }
    rs.set(r, TicketRecords.LAST_ACTIVITY, now);
    rs.flag(r, Ticket.SEEN, true);
    long sent = rs.get(r, TicketRecords.COOKIES_SENT_AT);
    if (sent == Ticket.COOKIES_DUE || now - sent >= p.cookieRefresh()) {
      rs.set(r, TicketRecords.COOKIES_SENT_AT, now);
      flags |= Outcome.REFRESH_COOKIES;
    }
    if (rs.is(r, Ticket.AWAY)) {
      window.present(rs.owner(r), now);
    }
    if (rs.state(r) == Ticket.READY) {
      if (!rs.is(r, Ticket.TOLD)) {
        // the claim deadline runs from when the client learns of it
        rs.flag(r, Ticket.TOLD, true);
        rs.set(r, TicketRecords.READY_AT, now);
        flags |= Outcome.FIRST_READY;
      }
      return Outcome.of(Outcome.READY, 0, flags);
    }
    return Outcome.of(Outcome.WAITING, index.positionAt(rs.slot(r)), flags);
  }

  /** A reload with the ticket: admits a ready ticket, else counts as a (rate-limited) poll. */
  long claim(long hi, long lo, long now, Policy p) {
    Ticket t = tokens.get(hi, lo);
    if (t == null) {
      return gone(hi, lo);
    }
    if (Retirement.expired(t, now, p)) {
      return retirement.retireExpired(t, now);
    }
    long flags = window.lapseIfDue(t, now, p);
    if (t.away()) {
      window.present(t, now);
    }
    if (t.state() == Ticket.READY) {
      window.admitReady(t);
      return Outcome.of(Outcome.ADMITTED, 0, flags);
    }
    t.lastActivity(now);
    t.seen(true);
    if (t.reloaded() && now - t.lastPoll() < p.pollInterval()) {
      // a reload is a poll in disguise: one per poll interval, no cookies re-sent; the page's
      // own poll just before is the room's doing, so it does not count against the visitor
      return Outcome.of(Outcome.WAITING, index.position(t), flags | Outcome.RATE_LIMITED);
    }
    t.lastPoll(now);
    t.polled(true);
    t.reloaded(true);
    if (t.cookiesSentAt() != Ticket.COOKIES_DUE) { // a restored ticket's next poll still sends them
      t.cookiesSentAt(now);
    }
    return Outcome.of(Outcome.WAITING, index.position(t), flags);
  }

  /** A token not in line: its place moved to another device, or it is simply unknown. */
  private long gone(long hi, long lo) {
    return Outcome.of(identities.isMoved(hi, lo) ? Outcome.MOVED : Outcome.UNKNOWN, 0, 0);
  }
}
