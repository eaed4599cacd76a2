package dev.room.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The load test's out-of-order detector, on made-up timelines (nanoseconds from 0). */
class LoadTestVerdictTest {
  @Test
  void laterArrivalAdmittedWhileAnEarlierOneWaitsIsOutOfOrder() {
    SimBrowser a = browser(0, 0, 100, 0); // ticket at 100, never admitted in this timeline
    a.waitingPoll(500, 3); // still waiting at 500
    SimBrowser b = browser(1, 200, 250, 400); // arrived after a's ticket, admitted at 400
    List<String> found = LoadTest.outOfOrder(List.of(a, b), 0);
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).startsWith("browser 0 "), found.get(0));
  }

  @Test
  void inOrderAdmissionsPass() {
    SimBrowser a = browser(0, 0, 100, 300);
    a.waitingPoll(200, 1);
    SimBrowser b = browser(1, 150, 160, 400);
    b.waitingPoll(350, 1); // waiting after a was admitted: fine, b came later
    assertTrue(LoadTest.outOfOrder(List.of(a, b), 0).isEmpty());
  }

  @Test
  void onlyCausallyOrderedPairsCount() {
    SimBrowser a = browser(0, 0, 100, 0);
    a.waitingPoll(300, 2); // sent before b's admission completed: concurrent, not a violation
    SimBrowser b =
        browser(1, 90, 120, 350); // b asked before a had its ticket: no order between them
    a.waitingPoll(400, 2);
    assertTrue(LoadTest.outOfOrder(List.of(a, b), 0).isEmpty());
  }

  @Test
  void payersMayOvertake() {
    SimBrowser a = browser(0, 0, 100, 0);
    a.waitingPoll(500, 2);
    SimBrowser payer = browser(1, 200, 250, 400);
    payer.paid = true;
    assertTrue(LoadTest.outOfOrder(List.of(a, payer), 0).isEmpty());
  }

  private static SimBrowser browser(int id, long firstSent, long ticketAt, long admittedAt) {
    SimBrowser b = new SimBrowser(id, SimBrowser.Kind.PATIENT, null, 0);
    b.firstSent = firstSent;
    b.ticketAt = ticketAt;
    b.admittedAt = admittedAt;
    return b;
  }
}
