package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, keep the origin busy: the head of the line polls fast, and a status request with {@code
 * wait=1} near the front is held until its client is offered a slot, bounded in number and in time.
 * The room runs on a fake clock; only the container's hold timeout is real time.
 */
class HeadOfLineHttpTest {
  private final FakeClock clock = new FakeClock();
  private final ParkingServlet app = new ParkingServlet();
  private WaitingRoom room;
  private JettyHarness jetty;

  @BeforeEach
  void start() throws Exception {
    room = WaitingRoom.builder().capacity(1).clock(clock).build();
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(app, "/*");
    jetty.start();
  }

  @AfterEach
  void stop() {
    jetty.close();
    room.close();
  }

  /** Holds the only slot with a parked request. */
  private CompletableFuture<HttpResponse<String>> occupy() throws Exception {
    Browser holder = new Browser();
    CompletableFuture<HttpResponse<String>> f = async(holder, jetty.url("/hold"), "text/html");
    app.awaitParked(1);
    return f;
  }

  private static CompletableFuture<HttpResponse<String>> async(
      Browser b, String url, String accept) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return b.get(url, accept);
          } catch (Exception e) {
            throw new RuntimeException(e);
          }
        });
  }

  /** A visitor in line: it got the waiting page and its ticket. */
  private Browser queued() throws Exception {
    Browser b = new Browser();
    assertEquals(200, b.get(jetty.url("/")).statusCode());
    return b;
  }

  private CompletableFuture<HttpResponse<String>> heldPoll(Browser b) {
    return async(b, jetty.url("/queue/status?wait=1"), "application/json");
  }

  private void awaitHeld(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (room.headOfLine().held() != n) {
      assertTrue(System.nanoTime() < deadline, "held " + room.headOfLine().held() + ", not " + n);
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  @Test
  void theFrontIsToldToPollEverySecond() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser b = queued();
    clock.advanceMillis(1001);
    String body = b.get(jetty.url("/queue/status"), "application/json").body();
    assertTrue(body.contains("\"position\":1"), body);
    assertTrue(body.endsWith("\"poll_after_ms\":1000}"), body);
    app.releaseOne();
    holder.join();
  }

  @Test
  void aHeldPollIsAnsweredTheMomentItsSlotFrees() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser b = queued();
    clock.advanceMillis(1001);
    CompletableFuture<HttpResponse<String>> poll = heldPoll(b);
    awaitHeld(1);
    assertFalse(poll.isDone());
    app.releaseOne(); // the slot frees: the held request hears of it at once, not at a timeout
    holder.join();
    HttpResponse<String> r = poll.get(10, TimeUnit.SECONDS);
    assertEquals(200, r.statusCode());
    assertEquals("{\"ready\":true,\"position\":0}", r.body());
    assertEquals(0, room.headOfLine().held());
    app.parkRequests(false);
    assertEquals(200, b.get(jetty.url("/")).statusCode()); // the claim
  }

  @Test
  void aHeldPollThatTimesOutSaysWhereItStandsAndMayPollAgainAtOnce() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser b = queued();
    clock.advanceMillis(1001);
    CompletableFuture<HttpResponse<String>> poll = heldPoll(b);
    awaitHeld(1);
    HttpResponse<String> r = poll.get(10, TimeUnit.SECONDS); // the hold's bound
    assertEquals(200, r.statusCode());
    assertTrue(
        r.body().startsWith("{\"ready\":false,\"state\":\"waiting\",\"position\":1"), r.body());
    assertTrue(r.body().endsWith("\"poll_after_ms\":0}"), r.body());
    assertEquals(0, room.headOfLine().held(), "released on timeout");
    app.releaseOne();
    holder.join();
  }

  @Test
  void onlyTheBandNearTheFrontIsHeld() throws Exception {
    CompletableFuture<HttpResponse<String>> holder = occupy();
    int band = HeadOfLine.HOLD_BAND; // × capacity 1
    Browser[] line = new Browser[band + 1];
    for (int i = 0; i < line.length; i++) {
      line[i] = queued();
    }
    clock.advanceMillis(1001);
    // the one just behind the band is answered at once, as before
    HttpResponse<String> back =
        line[band].get(jetty.url("/queue/status?wait=1"), "application/json");
    assertTrue(back.body().contains("\"position\":" + (band + 1)), back.body());
    assertEquals(0, room.headOfLine().held());
    // without the parameter nobody is held
    HttpResponse<String> plain = line[0].get(jetty.url("/queue/status"), "application/json");
    assertTrue(plain.body().contains("\"position\":1"), plain.body());
    clock.advanceMillis(1001);
    CompletableFuture<?>[] polls = new CompletableFuture<?>[band];
    for (int i = 0; i < band; i++) {
      polls[i] = heldPoll(line[i]);
    }
    awaitHeld(band);
    assertTrue(room.headOfLine().held() <= band * room.capacity());
    app.releaseOne(); // one slot: the front one is answered, the rest stay held
    holder.join();
    assertEquals(
        "{\"ready\":true,\"position\":0}",
        ((HttpResponse<?>) polls[0].get(10, TimeUnit.SECONDS)).body());
    CompletableFuture.allOf(polls).get(10, TimeUnit.SECONDS);
    assertEquals(0, room.headOfLine().held());
  }

  @Test
  void aHeldPollOfAClientAheadIsAnsweredThoughItWasHeldFurtherBack() throws Exception {
    // Regression (the soak: two offers in three waited for their client's next poll): the held
    // were kept in order of the position each had when held, so a client held at 3 before the two
    // ahead of it left sorted behind one held at 2 just after, though it stood ahead; the wake
    // stopped at that one, still waiting, and the offered client heard at its hold's timeout.
    room.headOfLine().holdMillis(60_000); // only a wake answers within the test's bound
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser x1 = queued();
    Browser x2 = queued();
    Browser a = queued();
    Browser b = queued();
    clock.advanceMillis(1001);
    CompletableFuture<HttpResponse<String>> pollA = heldPoll(a);
    awaitHeld(1);
    assertTrue(room.removeToken(x1.cookie(Cookies.TICKET)));
    assertTrue(room.removeToken(x2.cookie(Cookies.TICKET)));
    CompletableFuture<HttpResponse<String>> pollB = heldPoll(b);
    awaitHeld(2);
    app.releaseOne(); // the slot is a's: its held poll hears of it at once
    holder.join();
    assertEquals("{\"ready\":true,\"position\":0}", pollA.get(10, TimeUnit.SECONDS).body());
    assertFalse(pollB.isDone(), "b still waits behind a");
    assertEquals(1, room.headOfLine().held());
  }

  @Test
  void theFirstClientStillPollingIsHeldBehindThoseWhoStopped() throws Exception {
    // Regression (the soak: pages that stopped polling keep their places until their tickets
    // expire, hundreds of them at the front of a busy line): the band counted from position 1, so
    // it held nobody alive, and the live front was offered between its polls, the slot idle.
    CompletableFuture<HttpResponse<String>> holder = occupy();
    int gone = HeadOfLine.UNMEASURED_BAND + 4; // × capacity 1: beyond the band while unmeasured
    for (int i = 0; i < gone; i++) {
      queued(); // gets its ticket, never polls
    }
    Browser live = queued();
    clock.advanceMillis(Math.max(1001, room.policy().presenceWindow()));
    CompletableFuture<HttpResponse<String>> poll = heldPoll(live);
    awaitHeld(1);
    app.releaseOne(); // those ahead are absent: the slot is the live client's, and it hears at once
    holder.join();
    assertEquals("{\"ready\":true,\"position\":0}", poll.get(10, TimeUnit.SECONDS).body());
  }

  @Test
  void aClientHeldUntilItsHoldTimedOutIsPresentFromThenOn() throws Exception {
    // Regression (the soak on a loaded machine: 30 live pages passed over): a held poll counted as
    // the client heard from when it was held, not when it was answered, so a page whose next poll
    // came a little late after a full hold looked silent for the presence window and lost its turn
    // to one behind it.
    room.headOfLine().holdMillis(5000); // real time: the fake clock moves on first, at once
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser first = queued();
    Browser second = queued();
    clock.advanceMillis(1001);
    CompletableFuture<HttpResponse<String>> poll = heldPoll(first);
    awaitHeld(1);
    clock.advanceMillis(1000); // the hold runs its full course
    assertTrue(poll.get(10, TimeUnit.SECONDS).body().contains("\"ready\":false"));
    long window = room.policy().presenceWindow();
    clock.advanceMillis(window - 500); // its next poll is late, but less than the window
    assertTrue(
        second
            .get(jetty.url("/queue/status"), "application/json")
            .body()
            .contains("\"ready\":false"));
    app.releaseOne();
    holder.join();
    assertEquals(
        "{\"ready\":true,\"position\":0}",
        first.get(jetty.url("/queue/status"), "application/json").body(),
        "the first in line was passed over");
  }

  @Test
  void aWakeThatFindsTheCookiesDueSendsThemOnTheHeldResponse() throws Exception {
    // Regression (review of the held polls): a wake's re-poll of a client still waiting dropped
    // the poll's cookie refresh, which the line had already counted as sent, so the held answer
    // went out without the cookies and the next refresh was a third of a TTL away.
    room.headOfLine().holdMillis(300); // real time
    CompletableFuture<HttpResponse<String>> holder = occupy();
    Browser b = queued();
    clock.advanceMillis(1001);
    b.get(jetty.url("/queue/status"), "application/json"); // takes any refresh due now
    clock.advanceMillis(1001);
    CompletableFuture<HttpResponse<String>> poll = heldPoll(b);
    awaitHeld(1);
    clock.advanceMillis(room.tokenTtl().toMillis() / 3 + 1000); // the cookies are due again
    room.headOfLine().slotFreed(); // a wake: the client is still waiting, its cookies re-sent
    HttpResponse<String> r = poll.get(10, TimeUnit.SECONDS);
    assertTrue(r.body().contains("\"ready\":false"), r.body());
    assertTrue(
        r.headers().allValues("set-cookie").stream().anyMatch(c -> c.startsWith("room_ticket=")),
        "the held answer re-sent the ticket cookie: " + r.headers().allValues("set-cookie"));
    app.releaseOne();
    holder.join();
  }
}
