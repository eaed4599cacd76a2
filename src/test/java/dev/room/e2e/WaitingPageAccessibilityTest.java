package dev.room.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Currency;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.openqa.selenium.Cookie;

/**
 * The built-in waiting page for people who use a screen reader, a small phone, or who asked their
 * system for less motion: an axe-core audit of every state the page can be in, in light and dark
 * colours, plus the checks axe cannot make. Writes the screenshots under {@code
 * target/screenshots/} (the committed copies live in {@code docs/}).
 */
class WaitingPageAccessibilityTest {
  /** The states of the page, each with the element that shows it. */
  enum Scene {
    DEFAULT("#position"),
    SKIP_OFFER("#skip"),
    VIP("#pass"),
    COOKIES_REQUIRED("#cookies"),
    RECONNECTING("#reconnecting"),
    PAUSED("#announcement"),
    CLOSED("#explanation"),
    PRESALE("#estimate"),
    CLOSED_NEWCOMER("h1"),
    LINE_FULL("h1"),
    LINE_UNREACHABLE("h1");

    final String shownBy;

    Scene(String shownBy) {
      this.shownBy = shownBy;
    }

    String fileName() {
      return "waiting-page-" + name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** A page served to a new arrival that does not poll. */
    boolean still() {
      return this == COOKIES_REQUIRED
          || this == CLOSED_NEWCOMER
          || this == LINE_FULL
          || this == LINE_UNREACHABLE;
    }
  }

  private final FakeClock clock = new FakeClock(-62_135_596_799_877L);
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

  @ParameterizedTest
  @EnumSource(Scene.class)
  void axeFindsNoSeriousOrCriticalViolationsInLightOrDarkColours(Scene scene) throws Exception {
    show(scene, 640);
    chrome.screenshot(scene.fileName());
    List<String> light = Axe.seriousViolations(chrome);

    chrome.emulate("prefers-color-scheme", "dark");
    assertEquals(true, chrome.js("return matchMedia('(prefers-color-scheme: dark)').matches;"));
    chrome.screenshot(scene.fileName() + "-dark");
    List<String> dark = Axe.seriousViolations(chrome);

    assertTrue(light.isEmpty(), "light:\n" + String.join("\n", light));
    assertTrue(dark.isEmpty(), "dark:\n" + String.join("\n", dark));
  }

  @Test
  void theAuditIsNotVacuous() throws Exception {
    show(Scene.DEFAULT, 640);
    chrome.js("document.querySelector('main').append(document.createElement('button'));");

    List<String> violations = Axe.seriousViolations(chrome);

    assertTrue(
        violations.stream().anyMatch(v -> v.startsWith("button-name")),
        "axe must flag a button without a name: " + violations);
  }

  @Test
  void positionIsAnnouncedFromAnAriaLiveRegionOnlyWhenItChanges() throws Exception {
    show(Scene.DEFAULT, 640);
    @SuppressWarnings("unchecked")
    Map<String, Object> region =
        (Map<String, Object>)
            chrome.js(
                "const r = document.getElementById('position').closest('[aria-live]');"
                    + "return r && {id: r.id, live: r.getAttribute('aria-live'),"
                    + " atomic: r.getAttribute('aria-atomic'), role: r.getAttribute('role')};");
    assertEquals(
        Map.of("id", "place", "live", "polite", "atomic", "true", "role", "status"), region);
    chrome.recordTexts("#place");
    awaitPolls(3);
    assertEquals(0, chrome.rewrites(), "polls that change nothing announce nothing");

    site.releaseOne();
    chrome.untilText("#position", "2");
    awaitPolls(3);

    assertEquals(
        List.of("Your place in line: 3", "Your place in line: 2"),
        chrome.seenTexts(),
        "the announcement carries its label");
    assertEquals(1, chrome.rewrites(), "one change, one announcement");
  }

  @Test
  void fitsAScreen320PixelsWide() throws Exception {
    show(Scene.SKIP_OFFER, 320);
    assertEquals(320L, chrome.js("return window.innerWidth;"));

    assertTrue(
        (Long) chrome.js("return document.documentElement.scrollWidth;") <= 320,
        "no sideways scrolling");
    for (String css : List.of("h1", "#lead", "#position", "#skip", "#skip-link")) {
      assertTrue(
          Boolean.TRUE.equals(
              chrome.js(
                  "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                      + "return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth;",
                  css)),
          css + " is whole on screen");
    }
    chrome.screenshot("waiting-page-320px");
    chrome.find("#skip-link").click();
    chrome.untilText("#pay", "Pay to skip the line");
  }

  @Test
  void reducedMotionStopsTheAnimationAndThePageStillWorks() throws Exception {
    show(Scene.DEFAULT, 640);
    String animation =
        "return getComputedStyle(document.querySelector('#bar span')).animationName;";
    assertEquals("slide", chrome.js(animation));

    chrome.emulate("prefers-reduced-motion", "reduce");

    assertEquals(true, chrome.js("return matchMedia('(prefers-reduced-motion: reduce)').matches;"));
    assertEquals("none", chrome.js(animation));
    assertTrue(chrome.displayed("#bar"), "the bar stays, still");
    site.releaseOne();
    chrome.untilText("#position", "2");
  }

  /** Serves the page in {@code scene}, at {@code width} CSS pixels, in light colours. */
  private void show(Scene scene, int width) throws Exception {
    WaitingRoom.Builder room = WaitingRoom.builder().clock(clock);
    unreachable = null;
    if (scene == Scene.LINE_UNREACHABLE) {
      unreachable = new UnreachableLine(1);
      room.line(unreachable.line);
    } else {
      room.capacity(1);
    }
    if (scene == Scene.SKIP_OFFER || scene == Scene.VIP) {
      room.rateFunction(depth -> new BigDecimal("27.10"))
          .currency(Currency.getInstance("EUR"))
          .skipUrl(Site.SKIP_PATH);
    }
    if (scene == Scene.VIP) {
      room.passDuration(Duration.ofMinutes(30));
    }
    if (scene == Scene.LINE_FULL) {
      room.maxQueueDepth(2);
    }
    site = Site.start(room.build());
    site.holdSlot();
    site.queueVisitor();
    site.queueVisitor();
    switch (scene) {
      case PAUSED -> {
        site.room.setMode(RoomMode.PAUSED);
        site.room.setAnnouncement("Payments are being fixed; back in a few minutes.");
      }
      case PRESALE -> site.room.schedulePresale(clock.instant().plus(Duration.ofMinutes(30)));
      case CLOSED_NEWCOMER -> site.room.setMode(RoomMode.CLOSED);
      default -> {}
    }

    chrome = scene == Scene.COOKIES_REQUIRED ? Chrome.startBlockingCookies() : Chrome.start();
    chrome.viewport(width, width < 600 ? 568 : 480);
    chrome.emulate("prefers-color-scheme", "light");
    if (scene == Scene.VIP) {
      String pass = site.room.grantPass();
      chrome.open(site.url(Site.SKIP_PATH));
      chrome.driver().manage().addCookie(new Cookie("room_pass", pass, "/"));
    }
    chrome.open(site.url("/"));
    if (scene == Scene.CLOSED) {
      site.room.setMode(RoomMode.CLOSED); // a visitor in line comes back while closed
      chrome.open(site.url("/"));
    }
    if (scene == Scene.LINE_UNREACHABLE) {
      unreachable.down.set(true); // the line's store goes away while the visitor is in line
      chrome.open(site.url("/"));
    }
    if (!scene.still()) {
      awaitPolls(1);
    }
    if (scene == Scene.RECONNECTING) {
      site.stop();
    }
    chrome.untilDisplayed(scene.shownBy);
    if (scene != Scene.COOKIES_REQUIRED) {
      assertFalse(chrome.displayed("#cookies"));
    }
  }

  private void awaitPolls(int n) {
    BooleanSupplier polled = site.polledAgain(n);
    chrome.until(n + " more status polls", d -> polled.getAsBoolean());
  }
}
