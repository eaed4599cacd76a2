package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A web.xml user reads the name of the init-param they wrote, not the Java setter's. */
class ConfigErrorNamesTest {
  private static FilterConfig config(Map<String, String> params) {
    return new FilterConfig() {
      @Override
      public String getFilterName() {
        return "room";
      }

      @Override
      public ServletContext getServletContext() {
        throw new UnsupportedOperationException();
      }

      @Override
      public String getInitParameter(String name) {
        return params.get(name);
      }

      @Override
      public Enumeration<String> getInitParameterNames() {
        return Collections.enumeration(params.keySet());
      }
    };
  }

  private static String error(String param, String value) {
    ServletException e =
        assertThrows(
            ServletException.class,
            () -> new FilterConfigReader(config(Map.of("capacity", "5", param, value))).buildRoom(),
            param + "=" + value);
    return e.getMessage();
  }

  @Test
  void configurationErrorsNameTheParameterTheUserWrote() {
    String prefix = "WaitingRoomFilter room: ";
    assertEquals(
        prefix + "token-ttl must be ZERO or between PT30S and PT24H, was PT10S",
        error("token-ttl", "PT10S"));
    assertEquals(
        prefix + "reaper-interval must be ZERO or between PT5S and PT24H, was PT1S",
        error("reaper-interval", "1"));
    assertEquals(
        prefix + "first-poll-grace must not be negative, was PT-3S",
        error("first-poll-grace", "-3"));
    assertEquals(
        prefix + "offer-timeout must be ZERO or between PT5S and PT1H, was PT2S",
        error("offer-timeout", "2"));
    assertEquals(
        prefix + "pass-duration must be ZERO or between PT1M and PT24H, was PT2S",
        error("pass-duration", "2"));
    assertEquals(
        prefix + "session-duration must be ZERO or between PT30S and PT168H, was PT2S",
        error("session-duration", "2"));
    assertEquals(
        prefix + "session-max-duration must be ZERO or between PT30S and PT168H, was PT2S",
        error("session-max-duration", "2"));
    assertEquals(
        prefix + "max-queue-depth must not be negative, was -1", error("max-queue-depth", "-1"));
    assertEquals(
        prefix + "queue-full-status must be 503 or 429, was 404",
        error("queue-full-status", "404"));
    assertEquals(
        prefix + "cookie-path must start with '/', was shop", error("cookie-path", "shop"));
    assertEquals(
        prefix + "admission-rate must be 0 (unlimited) or a positive number, was -1.0",
        error("admission-rate", "-1"));
  }

  @Test
  void maxQueueDepthAcceptsAnyLongTheSetterAccepts() throws ServletException {
    try (WaitingRoom room =
        new FilterConfigReader(config(Map.of("capacity", "5", "max-queue-depth", "3000000000")))
            .buildRoom()) {
      assertEquals(3_000_000_000L, room.maxQueueDepth());
    }
  }
}
