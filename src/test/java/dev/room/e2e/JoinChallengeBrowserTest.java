package dev.room.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.FakeClock;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.Cookie;

/**
 * The proof-of-work gate in a real headless Chromium: the built-in challenge page fetches an ALTCHA
 * challenge, solves it in its Blob Web Worker, sends the solution in its cookie and reloads into
 * the waiting page with a ticket. Prints how long the solve took (the payload's {@code took}), the
 * figure the README's cost table quotes.
 */
class JoinChallengeBrowserTest {
  private final FakeClock clock = new FakeClock(4_102_444_799_871L);
  private Chrome chrome;
  private Site site;

  @AfterEach
  void tearDown() throws Exception {
    Closer.closeAll(chrome, site);
  }

  @ParameterizedTest
  @ValueSource(ints = {10, 16})
  void theBuiltInPageSolvesThePuzzleAndGetsATicket(int bits) throws Exception {
    // Queue-all: every newcomer needs a ticket, and no parked request has to outlast the solve.
    site =
        Site.start(
            WaitingRoom.builder()
                .capacity(1)
                .clock(clock)
                .mode(RoomMode.QUEUE_ALL)
                .joinChallenge(bits)
                .build());

    chrome = Chrome.start();
    chrome.open(site.url("/shop"));
    Cookie ticket =
        chrome.until("a ticket after the puzzle", d -> d.manage().getCookieNamed("room_ticket"));
    assertNotNull(ticket);
    chrome.until("the waiting page", d -> d.getPageSource().contains("id=\"waiting\""));
    assertEquals(1, site.room.liveQueueDepth(), "one solution, one place");
    assertEquals(0, site.room.challengesRefused());

    Cookie solution = chrome.driver().manage().getCookieNamed("room_altcha");
    assertNotNull(solution, "the page sent its solution in the room_altcha cookie");
    JsonNode p = new ObjectMapper().readTree(Base64.getUrlDecoder().decode(solution.getValue()));
    assertEquals("SHA-256", p.get("algorithm").asText());
    assertTrue(p.get("number").asLong() <= 1L << bits);
    System.out.printf(
        "join challenge: %d bits (maxnumber %d): number %d found in %d ms in Chromium%n",
        bits, 1L << bits, p.get("number").asLong(), p.get("took").asLong());
  }
}
