package dev.room;

import dev.room.engine.AdmissionMeter;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A waiting visitor's standing, as the status JSON carries it: what the sale's mode, pre-sale and
 * measured admission rate mean for one place in line.
 *
 * @param state {@code waiting}, {@code paused}, {@code closed} or {@code passthrough}
 * @param showPosition whether the position means anything now (not while closed or before a
 *     pre-sale draw)
 * @param message the announcement, else a plain sentence for the state; {@code ""} for none
 * @param opensInSeconds seconds until a pending pre-sale opens, else -1
 * @param waitLow the low end of the wait estimate in seconds, else -1
 * @param waitHigh the high end, else -1
 * @param pollAfterMillis when to poll next, with jitter
 */
record Standing(
    String state,
    boolean showPosition,
    String message,
    long opensInSeconds,
    long waitLow,
    long waitHigh,
    long pollAfterMillis) {

  static final String PAUSED_MESSAGE =
      "Admission is paused for now. Everyone keeps their place in line, and this page carries on"
          + " by itself when admission resumes.";

  /** What a page whose place moved to another device says (a fair line: identity). */
  static final String MOVED_MESSAGE =
      "You joined the line again on another device or browser, so your place is kept there now."
          + " Carry on there, or reload this page to bring your place back here.";

  static final String CLOSED_MESSAGE =
      "Nobody more will be let in from this line. Should the sale reopen, everyone in it keeps"
          + " their place, and this page carries on by itself.";
  static final String QUEUE_ALL_MESSAGE =
      "Admission has not started yet. You have your place in line, and this page lets you in when"
          + " it starts.";
  static final String PRESALE_MESSAGE =
      "The sale has not opened yet. Everyone who arrives before it opens gets a place in line"
          + " drawn at random when it opens.";

  static final long POLL_MILLIS = 3000;
  static final long PAUSED_POLL_MILLIS = 5000;

  /**
   * As short as a pause's: a closed sale may reopen (more stock, a mistake undone), and those in
   * line must notice within one poll, not half a minute later.
   */
  static final long CLOSED_POLL_MILLIS = PAUSED_POLL_MILLIS;

  static final long MAX_POLL_MILLIS = 30_000;
  static final long NEAR_FRONT_POLL_MILLIS = 2000;
  static final long NEAR_FRONT = 10;

  /**
   * The standing of {@code position} in mode {@code m}, with pre-sale {@code p} (null for none),
   * the room's {@code announcement} and the admissions {@code meter} has measured.
   */
  static Standing of(
      RoomMode m, Presale p, String announcement, AdmissionMeter meter, long position, long now) {
    boolean pending = p != null && !p.drawn();
    String message = announcement;
    if (message.isEmpty()) {
      message = explanation(m, pending);
    }
    long opensIn = pending ? Math.max(0, (p.opensAt() - now + 999) / 1000) : -1;
    long poll =
        switch (m) {
          case CLOSED -> CLOSED_POLL_MILLIS;
          case PAUSED -> PAUSED_POLL_MILLIS;
          default -> POLL_MILLIS;
        };
    poll = Math.min(MAX_POLL_MILLIS, load(poll, position));
    long low = -1;
    long high = -1;
    if (m == RoomMode.OPEN && !pending) { // admission is not held
      double rate = meter.perSecond(now);
      if (rate > 0) {
        double estimate = position / rate;
        double spread = 0.25 + 2.0 / Math.sqrt(Math.max(1, position));
        low = (long) Math.floor(estimate / (1 + spread));
        high = (long) Math.ceil(estimate * (1 + spread) + poll / 1000.0);
        poll = Math.min(poll, Math.max(NEAR_FRONT_POLL_MILLIS, low * 1000 / 4));
      }
    }
    if (pending) {
      poll = Math.min(poll, Math.max(NEAR_FRONT_POLL_MILLIS, opensIn * 1000));
    } else if (position <= NEAR_FRONT && m != RoomMode.CLOSED) {
      poll = Math.min(poll, NEAR_FRONT_POLL_MILLIS); // the front learns first when admission runs
    }
    return new Standing(
        m.state(), m != RoomMode.CLOSED && !pending, message, opensIn, low, high, jitter(poll));
  }

  /** The plain-words sentence for a mode, {@code ""} when there is nothing to explain. */
  static String explanation(RoomMode m, boolean presalePending) {
    return switch (m) {
      case PAUSED -> PAUSED_MESSAGE;
      case CLOSED -> CLOSED_MESSAGE;
      case QUEUE_ALL -> presalePending ? PRESALE_MESSAGE : QUEUE_ALL_MESSAGE;
      default -> presalePending ? PRESALE_MESSAGE : "";
    };
  }

  /**
   * Longer polls the further back, which is where a long line's polls come from: ×1 up to place
   * 1000, ×2.5 at 10 000, ×4 at 100 000. Reading the position the poll already has costs nothing,
   * where the line's length may cost a round trip to a shared store.
   */
  private static long load(long base, long position) {
    if (position <= 1000) {
      return base;
    }
    return (long) (base * (1 + 1.5 * Math.log10(position / 1000.0)));
  }

  /** ±20% of {@code millis}, never under the poll interval the line enforces. */
  private static long jitter(long millis) {
    double f = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
    return Math.max(WaitingRoom.POLL_INTERVAL_MILLIS, (long) (millis * f));
  }
}
