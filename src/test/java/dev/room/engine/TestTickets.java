package dev.room.engine;

/** Tickets for the structure tests: each in a record of one shared store, under a given token. */
final class TestTickets {
  private final TicketRecords records = new TicketRecords();

  Ticket make(long hi, long lo, long number) {
    int r = records.next();
    Ticket t = new Ticket(records, r, number);
    records.take(r, t);
    token(t, hi, lo);
    return t;
  }

  /** Gives {@code t} the token {@code hi, lo} (not listed: no store finds it). */
  static void token(Ticket t, long hi, long lo) {
    t.records().set(t.rec(), TicketRecords.HI, hi);
    t.records().set(t.rec(), TicketRecords.LO, lo);
  }
}
