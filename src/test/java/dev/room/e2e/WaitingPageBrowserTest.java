package dev.room.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.Browser;
import dev.room.FakeClock;
import dev.room.ImportStats;
import dev.room.TicketInfo;
import dev.room.WaitingRoom;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.openqa.selenium.Cookie;

/**
 * The waiting page in a real browser, as a visitor uses it: headless Chromium against the room on a
 * real Jetty. The room runs on a {@link FakeClock} the test moves; the page's timers run ten times
 * faster than real time (see {@link Chrome}); nothing waits on a sleep.
 */
class WaitingPageBrowserTest {
  private final FakeClock clock = new FakeClock(4_102_444_799_871L);
  private Chrome chrome;
  private Site site;
  private Site restarted;

  @AfterEach
  void tearDown() throws Exception {
    Closer.closeAll(chrome, site, restarted);
  }

  private WaitingRoom.Builder room(PageKind page) {
    return WaitingRoom.builder().capacity(1).clock(clock).html(page.html);
  }

  @ParameterizedTest
  @EnumSource(PageKind.class)
  void positionCountsDownInPlaceThenTheVisitorIsLetInByItself(PageKind page) throws Exception {
    site = Site.start(room(page).build());
    site.holdSlot();
    Browser first = site.queueVisitor();
    Browser second = site.queueVisitor();

    chrome = Chrome.start();
    chrome.open(site.url("/shop"));
    chrome.untilText(page.position, "3");
    int pages = site.waitingPages();
    chrome.markDocument();
    chrome.recordTexts(page.position);

    site.releaseOne(); // the slot frees: `first` is told it is ready, everyone behind moves up
    chrome.untilText(page.position, "2");
    site.enter(first);
    site.releaseOne();
    chrome.untilText(page.position, "1");
    assertTrue(chrome.sameDocument(), "the position changed in place, without a reload");
    assertEquals(List.of("3", "2", "1"), chrome.seenTexts());

    site.enter(second);
    site.app.parkRequests(false);
    site.releaseOne(); // our turn: the page reloads by itself and the room lets it in
    chrome.until("the application page", d -> d.getPageSource().contains("app:/shop"));
    assertEquals(pages, site.waitingPages(), "admitted on its ticket, not queued again");
    assertEquals(0, site.room.liveQueueDepth());
  }

  @ParameterizedTest
  @EnumSource(PageKind.class)
  void blockedCookiesGetTheExplanationAndNoReloadLoop(PageKind page) throws Exception {
    site = Site.start(room(page).build());
    site.holdSlot();

    chrome = Chrome.startBlockingCookies();
    chrome.open(site.url("/"));
    chrome.untilDisplayed(page.cookiesRequired);

    // The page decided on load, from document.cookie, and scheduled nothing: no poll, no reload.
    assertEquals(0, chrome.pendingTimers(), "nothing left scheduled");
    assertEquals(0, site.statusPolls());
    assertEquals(1, site.waitingPages(), "one page view, no reload loop");
    assertTrue(chrome.driver().manage().getCookies().isEmpty(), "the browser kept no cookie");
    if (page == PageKind.BUILT_IN) {
      assertEquals("Cookies are needed to keep your place", chrome.text("h1"));
      assertFalse(chrome.displayed("#waiting"), "no position that will never move");
    }
  }

  @ParameterizedTest
  @EnumSource(PageKind.class)
  void aTicketCookieLostWhileWaitingGetsTheExplanationAndPollingStops(PageKind page)
      throws Exception {
    site = Site.start(room(page).build());
    site.holdSlot();
    chrome = Chrome.start();
    chrome.open(site.url("/"));
    chrome.untilText(page.position, "1");
    chrome.markDocument();
    awaitPolls(1);

    chrome.driver().manage().deleteCookieNamed("room_ticket"); // a privacy tool, say
    chrome.untilDisplayed(page.cookiesRequired);

    assertEquals(0, chrome.pendingTimers(), "polling stopped");
    assertTrue(chrome.sameDocument(), "no reload");
    assertEquals(1, site.waitingPages());
  }

  @ParameterizedTest
  @EnumSource(PageKind.class)
  void aWaitLongerThanTheTokenTtlKeepsThePlace(PageKind page) throws Exception {
    Duration ttl = Duration.ofSeconds(30);
    site = Site.start(room(page).tokenTtl(ttl).build());
    site.holdSlot();
    chrome = Chrome.start();
    chrome.open(site.url("/"));
    chrome.untilText(page.position, "1");
    chrome.markDocument();
    String ours = chromeCookie("room_ticket");
    Browser idle = site.queueVisitor(); // behind us, and never polls
    String theirs = idle.cookie("room_ticket");
    int refreshes = site.cookieRefreshes();

    // Polls re-send the cookies at most once per TTL/3; each step is longer than that and shorter
    // than the TTL, so every step must bring exactly one refresh.
    Duration step = ttl.dividedBy(3).plusSeconds(1);
    int steps = 9;
    for (int i = 0; i < steps; i++) {
      clock.advance(step);
      awaitPolls(1);
      site.room.evictExpired();
    }

    Optional<TicketInfo> kept = site.room.ticket(ours);
    assertTrue(kept.isPresent(), "still in line after " + step.multipliedBy(steps) + " > TTL");
    assertEquals(1, kept.get().position());
    assertTrue(site.room.ticket(theirs).isEmpty(), "the visitor who stopped polling was reclaimed");
    assertEquals(steps, site.cookieRefreshes() - refreshes, "polls re-sent the cookies");
    assertTrue(ours.equals(chromeCookie("room_ticket")), "the browser still holds the same ticket");
    assertTrue(chrome.sameDocument());
    assertEquals("1", chrome.text(page.position));

    site.app.parkRequests(false);
    site.releaseOne();
    chrome.until("the application page", d -> d.getPageSource().contains("app:/"));
  }

  @Test
  void skipOfferAppearsAndItsButtonGoesToTheSkipUrl() throws Exception {
    site =
        Site.start(
            room(PageKind.BUILT_IN)
                .rateFunction(depth -> new BigDecimal("0.50"))
                .skipUrl(Site.SKIP_PATH)
                .build());
    site.holdSlot();
    site.queueVisitor();
    site.queueVisitor();
    chrome = Chrome.start();
    chrome.open(site.url("/"));

    chrome.untilDisplayed("#skip");
    assertEquals("3", chrome.text("#position"));
    assertEquals("1.00", chrome.text("#skip-cost"), "two places at 0.50 each");
    assertEquals("0.50", chrome.text("#skip-rate"));
    assertFalse(chrome.displayed("#pass"));

    chrome.find("#skip-link").click();
    chrome.untilText("#pay", "Pay to skip the line");
    assertEquals(site.url(Site.SKIP_PATH), chrome.driver().getCurrentUrl());
  }

  @Test
  void vipPassShowsTheBadgeInsteadOfTheSkipOffer() throws Exception {
    site =
        Site.start(
            room(PageKind.BUILT_IN)
                .passDuration(Duration.ofMinutes(30))
                .rateFunction(depth -> new BigDecimal("0.50"))
                .skipUrl(Site.SKIP_PATH)
                .build());
    site.holdSlot();
    site.queueVisitor();
    site.queueVisitor();
    String pass = site.room.grantPass();
    chrome = Chrome.start();
    chrome.open(site.url(Site.SKIP_PATH)); // a page of the site, to set its cookie
    chrome.driver().manage().addCookie(new Cookie("room_pass", pass, "/"));
    chrome.open(site.url("/"));

    chrome.untilDisplayed("#pass");
    assertEquals("1", chrome.text("#position"), "a pass holder goes ahead of earlier visitors");
    assertTrue(chrome.text("#pass").contains("VIP pass"));
    assertFalse(chrome.displayed("#skip"), "nothing to sell to a pass holder");
  }

  @Test
  void serverRestartShowsReconnectingThenResumesWithTheSamePlace() throws Exception {
    site = Site.start(room(PageKind.BUILT_IN).linePersisted(true).build()); // exported, imported
    site.holdSlot();
    Browser first = site.queueVisitor();
    Browser second = site.queueVisitor();
    chrome = Chrome.start();
    chrome.open(site.url("/"));
    chrome.untilText("#position", "3");
    chrome.markDocument();
    String ours = chromeCookie("room_ticket");
    site.releaseOne(); // `first` is ready, and does not come back before the restart
    chrome.untilText("#position", "2");
    int port = site.port();

    site.stop(); // a deploy: the old process stops serving...
    chrome.untilDisplayed("#reconnecting");
    assertEquals("2", chrome.text("#position"), "the last known place stays on screen");
    assertEquals("Reconnecting… your place is kept.", chrome.text("#reconnecting"));
    ByteArrayOutputStream saved = new ByteArrayOutputStream();
    site.room.exportTo(saved); // ...hands its line over...
    site.close();
    site = null;

    WaitingRoom next = room(PageKind.BUILT_IN).linePersisted(true).build();
    ImportStats stats = next.importFrom(new ByteArrayInputStream(saved.toByteArray()));
    assertEquals(3, stats.restored());
    restarted = Site.startOn(port, next); // ...and the new one takes over on the same address
    restarted.app.parkRequests(false);

    chrome.untilHidden("#reconnecting");
    chrome.untilText("#position", "2");
    assertTrue(chrome.sameDocument(), "the page resumed polling; it did not reload");
    assertEquals(0, restarted.waitingPages(), "no new ticket: the place was kept");
    assertEquals(2, next.ticket(ours).orElseThrow().position());

    // second's page polls after the restart too: a restored client that is not heard from would
    // lose its turn (not its place) to the present ones behind it.
    second.get(restarted.url("/queue/status"), "application/json");
    assertEquals("app:/", restarted.visit(first, "/"));
    chrome.untilText("#position", "1");
    assertEquals("app:/", restarted.visit(second, "/"));
    chrome.until("the application page", d -> d.getPageSource().contains("app:/"));
    assertEquals(0, next.liveQueueDepth());
  }

  private String chromeCookie(String name) {
    Cookie c = chrome.driver().manage().getCookieNamed(name);
    assertNotNull(c, name + " cookie");
    return c.getValue();
  }

  /** Waits until the page has made {@code n} more status polls. */
  private void awaitPolls(int n) {
    BooleanSupplier polled = site.polledAgain(n);
    chrome.until(n + " more status polls", d -> polled.getAsBoolean());
  }
}
