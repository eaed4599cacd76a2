package dev.room;

import dev.room.Admission.Queued;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * One status request held by the {@link HeadOfLine}; answered once, by a wake or its timeout,
 * whichever comes first.
 */
final class HeldPoll implements AsyncListener {
  private final HeadOfLine head;
  final WaitingRoom room;
  final HttpServletRequest req;
  final HttpServletResponse res;
  final AsyncContext ctx;
  final Queued queued; // where it stood when held: a timeout answers with it if the line fails
  long key; // its place in the held list (see HeadOfLine's departed); guarded by it
  private boolean answered; // guarded by this

  HeldPoll(
      HeadOfLine head,
      WaitingRoom room,
      HttpServletRequest req,
      HttpServletResponse res,
      AsyncContext ctx,
      Queued queued,
      long key) {
    this.head = head;
    this.room = room;
    this.req = req;
    this.res = res;
    this.ctx = ctx;
    this.queued = queued;
    this.key = key;
  }

  /**
   * Polls for it; answers and returns -1 unless it still waits, else returns its position now.
   * Under the monitor, as every use of the request: once answered it is never read again.
   */
  synchronized long answerIfOffered() {
    if (answered) {
      return -1;
    }
    Admission a;
    try {
      a = Gatekeeper.status(room, req, ServletVisitor.INSTANCE);
    } catch (RuntimeException e) {
      a = queued; // the line is out of reach: where it stood when held, as a timeout answers
    }
    if (a instanceof Queued q && q.waiting() && a != queued) {
      head.observe(q.position(), room.clock().millis());
      if (q.refreshCookies()) {
        // the line counts the cookies sent by this poll: the held response carries them
        Cookies.sendTicket(req, res, room, q.token());
      }
      return q.position();
    }
    answer(a);
    return -1;
  }

  /** Answers with {@code a} and completes. Caller holds the monitor. */
  private void answer(Admission a) {
    head.remove(this);
    answered = true;
    try {
      StatusEndpoint.answer(room, req, res, a, true);
    } catch (IOException | RuntimeException e) {
      // the client went away meanwhile: nothing to answer
    } finally {
      try {
        ctx.complete();
      } catch (IllegalStateException e) {
        // already completed by the container (an error)
      }
    }
  }

  @Override
  public synchronized void onTimeout(AsyncEvent event) {
    if (answered) {
      return;
    }
    // Polled again, so the client counts as heard from when its hold ended, not when it began:
    // a page whose next poll comes a little late after a full hold is not silent for the whole
    // presence window and passed over (the soak on a loaded machine). The poll also tells an
    // offer a wake missed. The page's next poll, at once, is too soon after this one: it is held
    // again while there is room in the band, else answered 429 with a second's Retry-After.
    Admission a;
    try {
      a = Gatekeeper.status(room, req, ServletVisitor.INSTANCE);
    } catch (RuntimeException e) {
      a = queued; // the line is out of reach: where it stood when held
    }
    if (!answered) { // the poll may have freed a slot, and the wake it asked for answered this
      answer(a);
    }
  }

  @Override
  public synchronized void onError(AsyncEvent event) {
    head.remove(this);
    if (!answered) {
      answered = true;
      try {
        ctx.complete();
      } catch (IllegalStateException e) {
        // completed meanwhile
      }
    }
  }

  @Override
  public synchronized void onComplete(AsyncEvent event) {
    answered = true; // completed by the container itself (a shutdown): never written again
    head.remove(this);
  }

  @Override
  public void onStartAsync(AsyncEvent event) {}
}
