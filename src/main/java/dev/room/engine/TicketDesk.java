package dev.room.engine;

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
  private final TokenTable tokens;
  private final LineIndex index;
  private final TicketCounter counter;
  private final ServingWindow window;
  private final Retirement retirement;
  private final Promoter promoter;

  TicketDesk(
      TokenTable tokens,
      LineIndex index,
      TicketCounter counter,
      ServingWindow window,
      Retirement retirement,
      Promoter promoter) {
    this.tokens = tokens;
    this.index = index;
    this.counter = counter;
    this.window = window;
    this.retirement = retirement;
    this.promoter = promoter;
  }

  /** Issues a ticket to an arrival: queued, or admitted at once if a slot is free for it. */
  long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    if (p.maxQueueDepth() > 0 && window.waiting() >= p.maxQueueDepth()) {
      return Outcome.of(Outcome.REJECTED, 0, 0);
    }
    Ticket t = new Ticket(hi, lo, counter.next());
    if (!tokens.add(t)) {
      return Outcome.of(Outcome.UNKNOWN, 0, 0); // a 2^-128 collision: the caller retries
    }
    t.issuedAt = counter.issuedAt(now);
    t.lastActivity = now;
    t.cookiesSentAt = now;
    t.clientKey = clientKey;
    t.hasPass = toFront;
    boolean front = promoter.place(t, toFront);
    window.queued();
    window.rebalance(now);
    if (t.state == Ticket.READY) {
      window.admitReady(t);
      return Outcome.of(Outcome.ADMITTED, 0, 0);
    }
    return Outcome.of(Outcome.WAITING, index.position(t), front ? Outcome.PROMOTED : 0);
  }

  /** A status poll: keeps the ticket alive, rate-limits it, tells it when it is ready. */
  long poll(long hi, long lo, long now, Policy p) {
    Ticket t = tokens.get(hi, lo);
    if (t == null) {
      return Outcome.of(Outcome.UNKNOWN, 0, 0);
    }
    if (Retirement.expired(t, now, p)) {
      return retirement.retireExpired(t, now);
    }
    long flags = window.lapseIfDue(t, now, p);
    if (t.polled && now - t.lastPoll < p.pollInterval()) {
      flags |= Outcome.RATE_LIMITED;
    } else {
      t.lastPoll = now;
      t.polled = true;
      t.reloaded = false;
    }
    t.lastActivity = now;
    t.seen = true;
    if (t.cookiesSentAt == Ticket.COOKIES_DUE || now - t.cookiesSentAt >= p.cookieRefresh()) {
      t.cookiesSentAt = now;
      flags |= Outcome.REFRESH_COOKIES;
    }
    if (t.away) {
      window.present(t, now);
    }
    if (t.state == Ticket.READY) {
      if (!t.told) {
        t.told = true;
        t.readyAt = now; // the claim deadline runs from when the client learns of it
        flags |= Outcome.FIRST_READY;
      }
      return Outcome.of(Outcome.READY, 0, flags);
    }
    return Outcome.of(Outcome.WAITING, index.position(t), flags);
  }

  /** A reload with the ticket: admits a ready ticket, else counts as a (rate-limited) poll. */
  long claim(long hi, long lo, long now, Policy p) {
    Ticket t = tokens.get(hi, lo);
    if (t == null) {
      return Outcome.of(Outcome.UNKNOWN, 0, 0);
    }
    if (Retirement.expired(t, now, p)) {
      return retirement.retireExpired(t, now);
    }
    long flags = window.lapseIfDue(t, now, p);
    if (t.away) {
      window.present(t, now);
    }
    if (t.state == Ticket.READY) {
      window.admitReady(t);
      return Outcome.of(Outcome.ADMITTED, 0, flags);
    }
    t.lastActivity = now;
    t.seen = true;
    if (t.reloaded && now - t.lastPoll < p.pollInterval()) {
      // a reload is a poll in disguise: one per poll interval, no cookies re-sent; the page's
      // own poll just before is the room's doing, so it does not count against the visitor
      return Outcome.of(Outcome.WAITING, index.position(t), flags | Outcome.RATE_LIMITED);
    }
    t.lastPoll = now;
    t.polled = true;
    t.reloaded = true;
    if (t.cookiesSentAt != Ticket.COOKIES_DUE) { // a restored ticket's next poll still sends them
      t.cookiesSentAt = now;
    }
    return Outcome.of(Outcome.WAITING, index.position(t), flags);
  }
}
