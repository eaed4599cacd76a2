package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.ServletException;
import java.util.Currency;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The page settings from {@code web.xml}: the skip prices' currency, and a persisted line. */
class PageSettingsInstallTest {
  @Test
  void currencyAndLinePersistedComeFromInitParams() throws Exception {
    try (JettyHarness jetty = new JettyHarness()) {
      jetty.webXmlFilter(
          "room", Map.of("capacity", "2", "currency", "eur", "line-persisted", "true"), "/*");
      jetty.servlet(new ParkingServlet(), "/*");
      jetty.start();
      WaitingRoom room =
          (WaitingRoom)
              jetty.context().getServletContext().getAttribute(WaitingRoom.CONTEXT_ATTRIBUTE);
      assertEquals(Currency.getInstance("EUR"), room.currency());
      assertTrue(room.linePersisted());
    }
  }

  @Test
  void aCurrencyThatIsNoIso4217CodeFailsStartUpNamingIt() {
    try (JettyHarness jetty = new JettyHarness()) {
      jetty.webXmlFilter("room", Map.of("capacity", "2", "currency", "euros"), "/*");
      Exception e = assertThrows(Exception.class, jetty::start);
      Throwable root = e;
      while (!(root instanceof ServletException) && root.getCause() != null) {
        root = root.getCause();
      }
      assertTrue(
          root.getMessage().contains("currency must be an ISO 4217 currency code"),
          root.getMessage());
    }
  }
}
