package dev.room.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.AdmissionMode;
import dev.room.FakeClock;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Currency;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every state of the built-in pages as a visitor first sees it, in headless Chromium against a real
 * Jetty: the first frame (the page as served, before any poll) already shows the state and its tab
 * title; the state's explanation and an announcement stand side by side; a reopening is noticed at
 * the next poll; money carries its currency; a reconnecting page hides what may be stale; and every
 * page (waiting, closed, line full, line unreachable) shares one style and fits a 320 px screen.
 */
class PageStatesBrowserTest {
  private static final String ANNOUNCEMENT = "Payments are being fixed; back in a few minutes.";

  private final FakeClock clock = new FakeClock(4_102_444_799_871L);
  private Chrome chrome;
  private Site site;
  private UnreachableLine unreachable;

  @AfterEach
  void tearDown() throws Exception {
    if (unreachable != null) {
      unreachable.down.set(false); // so the parked request can give its slot back
    }
    Closer.closeAll(chrome, site);
  }

  /** The states a page can be served in, each with its title and a sentence it must show. */
  enum State {
    WAITING("You're in line", "Your place in line:", true),
    PAUSED("Admission is paused", "Admission is paused for now.", false),
    CLOSED("This sale has closed", "Nobody more will be let in from this line.", false),
    QUEUE_ALL("You're in line", "Admission has not started yet.", false),
    PRESALE("The sale opens soon", "The sale has not opened yet.", false);

    final String title;
    final String says;
    final boolean bar;

    State(String title, String says, boolean bar) {
      this.title = title;
      this.says = says;
      this.bar = bar;
    }
  }

  @ParameterizedTest
  @EnumSource(State.class)
  void aNewcomerSeesTheStateAndItsTitleOnTheFirstFrame(State state) throws Exception {
    WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build();
    site = Site.start(room);
    site.holdSlot();
    switch (state) {
      case PAUSED -> room.setMode(RoomMode.PAUSED);
      case QUEUE_ALL -> room.setMode(RoomMode.QUEUE_ALL);
      case PRESALE -> room.schedulePresale(clock.instant().plus(Duration.ofMinutes(30)));
      default -> {}
    }
    chrome = Chrome.start();
    chrome.open(site.url("/shop"));
    if (state == State.CLOSED) {
      room.setMode(RoomMode.CLOSED); // a visitor in line reloads its page while closed
      chrome.open(site.url("/shop"));
    }

    Map<String, Object> first = chrome.firstFrame();
    String text = (String) first.get("text");
    assertEquals(0L, first.get("fetches"), "drawn before any poll");
    assertEquals(state.title, first.get("title"), "the tab title");
    assertTrue(text.startsWith(state.title), text);
    assertTrue(text.contains(state.says), text);
    assertEquals(state.bar, first.get("bar"), "a moving bar only while admission runs: " + text);
    if (state != State.WAITING && state != State.QUEUE_ALL) {
      assertFalse(text.contains("You're in line"), text);
    }
    boolean placed = state != State.CLOSED && state != State.PRESALE;
    assertEquals(placed, text.contains("Your place in line: 1"), "a place only if it means one");
    awaitPolls(1);
    assertEquals(state.title, chrome.driver().getTitle(), "and the same after a poll");
  }

  @Test
  void theAnnouncementStandsBesideThePauseExplanation() throws Exception {
    WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build();
    site = Site.start(room);
    site.holdSlot();
    room.setMode(RoomMode.PAUSED);
    room.setAnnouncement(ANNOUNCEMENT);
    chrome = Chrome.start();
    chrome.open(site.url("/"));

    String first = (String) chrome.firstFrame().get("text");
    assertTrue(first.contains("Admission is paused for now."), first);
    assertTrue(first.contains(ANNOUNCEMENT), first);
    awaitPolls(1);
    assertTrue(chrome.text("#explanation").startsWith("Admission is paused for now."));
    assertEquals(ANNOUNCEMENT, chrome.text("#announcement"));

    room.setMode(RoomMode.CLOSED);
    chrome.untilText("#title", "This sale has closed");
    assertTrue(chrome.text("#explanation").startsWith("Nobody more will be let in"));
    assertEquals(ANNOUNCEMENT, chrome.text("#announcement"), "beside the closure too");
    assertEquals("This sale has closed", chrome.driver().getTitle());

    room.setAnnouncement("");
    chrome.untilHidden("#announcement");
    assertTrue(chrome.displayed("#explanation"));
  }

  @Test
  void aClosedRoomThatReopensIsNoticedAtTheNextPoll() throws Exception {
    WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build();
    site = Site.start(room);
    site.holdSlot();
    site.queueVisitor();
    chrome = Chrome.start();
    chrome.open(site.url("/"));
    chrome.untilText("#position", "2");
    chrome.markDocument();

    room.setMode(RoomMode.CLOSED);
    chrome.untilText("#title", "This sale has closed");
    awaitPolls(1);
    long next = chrome.lastTimerDelay();
    assertTrue(next <= 6000, "a closed page polls again within a pause's interval, not " + next);

    room.setMode(RoomMode.OPEN);
    awaitPolls(1);
    chrome.untilText("#title", "You're in line");
    assertEquals("2", chrome.text("#position"));
    assertFalse(chrome.displayed("#explanation"), "nothing left saying nobody will be let in");
    assertTrue(chrome.sameDocument());
  }

  @Test
  void anOfferSaysItsYourTurnInTheTabTooThenLetsTheVisitorIn() throws Exception {
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .admissionMode(AdmissionMode.SESSIONS)
            .tokenTtl(Duration.ofHours(1))
            .build();
    site = Site.start(room);
    site.app.parkRequests(false);
    site.visit(new dev.room.Browser(), "/"); // a shopper whose session holds the one slot
    chrome = Chrome.start();
    chrome.open(site.url("/shop"));
    chrome.untilText("#position", "1");
    // Titles the tab takes, kept across the reload the offer triggers.
    chrome.js(
        "new MutationObserver(() => sessionStorage.setItem('titles',"
            + " (sessionStorage.getItem('titles') || '') + '|' + document.title))"
            + ".observe(document.querySelector('title'),"
            + " {childList: true, characterData: true, subtree: true});");

    clock.advance(room.sessionDuration().plusMinutes(1));
    room.evictExpired(); // the shopper's session ends: the slot is offered to the page
    chrome.until("the application page", d -> d.getPageSource().contains("app:/shop"));
    assertEquals("|It's your turn!", chrome.js("return sessionStorage.getItem('titles');"));
  }

  @Test
  void moneyIsShownInTheRoomsCurrency() throws Exception {
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .rateFunction(depth -> new BigDecimal("27.10"))
            .currency(Currency.getInstance("EUR"))
            .skipUrl(Site.SKIP_PATH)
            .build();
    site = Site.start(room);
    site.holdSlot();
    site.queueVisitor();
    site.queueVisitor();
    chrome = Chrome.start();
    chrome.open(site.url("/"));

    assertTrue(((String) chrome.firstFrame().get("text")).contains("€54.20"), "first frame");
    assertEquals("€54.20", chrome.text("#skip-cost"), "two places at 27.10 each");
    assertEquals("€27.10", chrome.text("#skip-rate"));
    room.setCurrency(Currency.getInstance("JPY"));
    chrome.untilText("#skip-cost", "¥54");
  }

  @Test
  void reconnectingHidesWhatMayBeStaleAndPromisesThePlaceOnlyWhenKept() throws Exception {
    WaitingRoom room =
        WaitingRoom.builder()
            .capacity(1)
            .clock(clock)
            .rateFunction(depth -> new BigDecimal("0.50"))
            .skipUrl(Site.SKIP_PATH)
            .build();
    site = Site.start(room);
    site.holdSlot();
    site.queueVisitor();
    chrome = Chrome.start();
    chrome.open(site.url("/"));
    chrome.untilDisplayed("#skip");
    assertTrue(chrome.displayed("#bar"));

    site.stop();
    chrome.untilDisplayed("#reconnecting");
    assertFalse(chrome.displayed("#skip"), "a price that may have changed");
    assertFalse(chrome.displayed("#bar"), "no progress while nothing is known");
    assertFalse(chrome.displayed("#estimate"));
    assertEquals("2", chrome.text("#position"), "the last known place stays");
    assertEquals("Reconnecting…", chrome.driver().getTitle());
    String said = chrome.text("#reconnecting");
    assertFalse(said.contains("place is kept"), "an in-memory line is lost in a restart: " + said);
  }

  @Test
  void aPersistedLineIsPromisedWhileReconnecting() throws Exception {
    WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).linePersisted(true).build();
    site = Site.start(room);
    site.holdSlot();
    chrome = Chrome.start();
    chrome.open(site.url("/"));
    awaitPolls(1);
    site.stop();
    chrome.untilDisplayed("#reconnecting");
    assertEquals("Reconnecting… your place is kept.", chrome.text("#reconnecting"));
  }

  /** The pages a visitor can meet besides the waiting page, and one that is. */
  enum Page {
    WAITING_PAUSED("Admission is paused"),
    CLOSED_NEWCOMER("This sale has closed"),
    LINE_FULL("The line is full"),
    LINE_UNREACHABLE("One moment"),
    RECONNECTING("Reconnecting…");

    final String title;

    Page(String title) {
      this.title = title;
    }
  }

  @ParameterizedTest
  @EnumSource(Page.class)
  void everyPageSharesTheStyleAndFitsA320PixelScreen(Page page) throws Exception {
    showPage(page, 320);
    assertEquals(320L, chrome.js("return window.innerWidth;"));
    assertEquals(page.title, chrome.driver().getTitle());
    assertEquals(
        "width=device-width, initial-scale=1",
        chrome.js("return document.querySelector('meta[name=viewport]').content;"));
    assertFalse(chrome.scrollsSideways(), "no sideways scrolling at 320 px");
    assertEquals(
        "12px",
        chrome.js("return getComputedStyle(document.querySelector('.card')).borderTopLeftRadius;"),
        "the built-in style");
    assertTrue(
        Boolean.TRUE.equals(
            chrome.js(
                "const r = document.querySelector('h1').getBoundingClientRect();"
                    + "return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth;")),
        "the heading is whole on screen");
    if (page == Page.CLOSED_NEWCOMER) {
      String text = chrome.text("main");
      assertEquals(1, text.split("has closed", -1).length - 1, "said once: " + text);
      assertTrue(text.contains(ANNOUNCEMENT), text);
    }
  }

  /** Serves {@code page} to a fresh browser at {@code width} CSS pixels. */
  void showPage(Page page, int width) throws Exception {
    WaitingRoom.Builder b = WaitingRoom.builder().clock(clock).announcement(ANNOUNCEMENT);
    unreachable = null;
    if (page == Page.LINE_UNREACHABLE) {
      unreachable = new UnreachableLine(1);
      b.line(unreachable.line).linePersisted(false);
    } else {
      b.capacity(1);
    }
    if (page == Page.LINE_FULL) {
      b.maxQueueDepth(1);
    }
    WaitingRoom room = b.build();
    site = Site.start(room);
    site.holdSlot();
    switch (page) {
      case WAITING_PAUSED -> room.setMode(RoomMode.PAUSED);
      case CLOSED_NEWCOMER -> room.setMode(RoomMode.CLOSED);
      case LINE_FULL -> site.queueVisitor();
      default -> {}
    }
    chrome = Chrome.start();
    chrome.viewport(width, 568);
    chrome.open(site.url("/"));
    if (page == Page.LINE_UNREACHABLE) {
      unreachable.down.set(true); // the line's store goes away while the visitor is in line
      chrome.open(site.url("/"));
    }
    if (page == Page.RECONNECTING) {
      awaitPolls(1);
      site.stop();
      chrome.untilDisplayed("#reconnecting");
    }
  }

  private void awaitPolls(int n) {
    BooleanSupplier polled = site.polledAgain(n);
    chrome.until(n + " more status polls", d -> polled.getAsBoolean());
  }
}
