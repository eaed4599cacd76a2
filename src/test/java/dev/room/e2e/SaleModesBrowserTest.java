package dev.room.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The built-in waiting page as the sale's mode changes under it, in headless Chromium: a pause and
 * a closed sale are said in plain words, without a moving bar, and the page picks up again when the
 * room reopens, all without a reload.
 */
class SaleModesBrowserTest {
  private final FakeClock clock = new FakeClock(4_102_444_799_871L);
  private Chrome chrome;
  private Site site;

  @AfterEach
  void tearDown() throws Exception {
    Closer.closeAll(chrome, site);
  }

  @Test
  void pauseClosureAndReopeningShowInPlainWordsWithoutAReload() throws Exception {
    WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build();
    site = Site.start(room);
    site.holdSlot();
    site.queueVisitor();
    chrome = Chrome.start();
    chrome.open(site.url("/shop"));
    chrome.untilText("#position", "2");
    chrome.markDocument();
    assertTrue(chrome.displayed("#bar"));

    room.setMode(RoomMode.PAUSED);
    chrome.untilText("#title", "Admission is paused");
    chrome.untilDisplayed("#explanation");
    assertTrue(chrome.text("#explanation").contains("Everyone keeps their place"));
    assertEquals("Admission is paused", chrome.driver().getTitle(), "the tab says so too");
    assertFalse(chrome.displayed("#bar"), "no progress animation while paused");
    assertEquals("2", chrome.text("#position"), "the place is kept, and shown");

    room.setAnnouncement("Payments are being fixed; back in a few minutes.");
    chrome.untilText("#announcement", "Payments are being fixed; back in a few minutes.");
    assertTrue(chrome.displayed("#explanation"), "beside the pause explanation, not instead");

    room.setAnnouncement("");
    room.setMode(RoomMode.CLOSED);
    chrome.untilText("#title", "This sale has closed");
    chrome.untilHidden("#place");
    assertTrue(chrome.text("#explanation").contains("Nobody more will be let in"));
    assertEquals("This sale has closed", chrome.driver().getTitle());
    assertFalse(chrome.displayed("#bar"));
    assertFalse(chrome.displayed("#estimate"));

    room.setMode(RoomMode.OPEN);
    chrome.untilText("#title", "You're in line");
    chrome.untilDisplayed("#place");
    chrome.untilHidden("#explanation");
    assertEquals("You're in line", chrome.driver().getTitle());
    assertTrue(chrome.displayed("#bar"));
    assertTrue(chrome.sameDocument(), "all of it in place, without a reload");
  }

  @Test
  void beforeAPresaleOpensThePageSaysWhenAndShowsNoPlace() throws Exception {
    WaitingRoom room = WaitingRoom.builder().capacity(1).clock(clock).build();
    room.schedulePresale(clock.instant().plus(Duration.ofMinutes(30)));
    site = Site.start(room);
    chrome = Chrome.start();
    chrome.open(site.url("/shop"));
    chrome.untilText("#title", "The sale opens soon");
    chrome.untilText("#estimate", "Opens in about 30 min");
    assertFalse(chrome.displayed("#place"), "no place until the draw");
    assertTrue(chrome.text("#explanation").contains("drawn at random"));
    assertEquals("The sale opens soon", chrome.driver().getTitle());
  }
}
