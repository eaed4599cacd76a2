package dev.room;

import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Currency;
import java.util.Locale;

/** Reads a filter's init-params; a bad value fails start-up with a message that names it. */
final class FilterConfigReader {
  private final FilterConfig config;

  FilterConfigReader(FilterConfig config) {
    this.config = config;
  }

  String string(String name) {
    String v = config.getInitParameter(name);
    return v == null || v.isBlank() ? null : v.strip();
  }

  /** Builds a room from the room-level init-params. */
  WaitingRoom buildRoom() throws ServletException {
    String capacity = string("capacity");
    if (capacity == null) {
      throw new ServletException(
          "WaitingRoomFilter " + config.getFilterName() + ": init-param 'capacity' is required");
    }
    try {
      WaitingRoom.Builder b = WaitingRoom.builder().capacity(integer("capacity", capacity));
      duration("token-ttl", b::tokenTtl);
      duration("reaper-interval", b::reaperInterval);
      duration("first-poll-grace", b::firstPollGrace);
      duration("offer-timeout", b::offerTimeout);
      duration("pass-duration", b::passDuration);
      String v;
      if ((v = string("max-queue-depth")) != null) {
        b.maxQueueDepth(whole("max-queue-depth", v));
      }
      if ((v = string("queue-full-status")) != null) {
        b.queueFullStatus(integer("queue-full-status", v));
      }
      if ((v = string("secure-cookie")) != null) {
        b.secureCookie(bool("secure-cookie", v));
      }
      if ((v = string("cookie-path")) != null) {
        b.cookiePath(v);
      }
      if ((v = string("cookie-domain")) != null) {
        b.cookieDomain(v);
      }
      if ((v = string("skip-url")) != null) {
        b.skipUrl(v);
      }
      if ((v = string("name")) != null) {
        b.name(v);
      }
      if ((v = string("admission-mode")) != null) {
        b.admissionMode(choice("admission-mode", v, AdmissionMode.class));
      }
      duration("session-duration", b::sessionDuration);
      duration("session-max-duration", b::sessionMaxDuration);
      if ((v = string("mode")) != null) {
        b.mode(choice("mode", v, RoomMode.class));
      }
      if ((v = string("announcement")) != null) {
        b.announcement(v);
      }
      if ((v = string("admission-rate")) != null) {
        b.admissionRate(decimal("admission-rate", v));
      }
      if ((v = string("currency")) != null) {
        b.currency(currency("currency", v));
      }
      // join guard (r3-guard)
      if ((v = string("join-limit")) != null) {
        b.joinLimit(integer("join-limit", v));
      }
      if ((v = string("join-challenge")) != null) {
        b.joinChallenge(integer("join-challenge", v));
      }
      if ((v = string("line-persisted")) != null) {
        b.linePersisted(bool("line-persisted", v));
      }
      return b.build();
    } catch (Checks.Invalid e) {
      throw new ServletException(
          "WaitingRoomFilter " + config.getFilterName() + ": " + param(e.setting) + " " + e.problem,
          e);
    } catch (IllegalArgumentException e) {
      throw new ServletException(
          "WaitingRoomFilter " + config.getFilterName() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The init-param for a setting: its Java name in kebab case ({@code tokenTtl} is {@code
   * token-ttl}), which is how every room-level init-param is named.
   */
  static String param(String setting) {
    StringBuilder b = new StringBuilder(setting.length() + 4);
    for (int i = 0; i < setting.length(); i++) {
      char c = setting.charAt(i);
      if (Character.isUpperCase(c)) {
        b.append('-').append(Character.toLowerCase(c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Validates a path init-param: absolute, and safe to embed in a page and a cookie. */
  static String path(String name, String p) {
    if (p == null || !p.startsWith("/")) {
      throw new IllegalArgumentException(name + " must start with '/', was " + p);
    }
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "/-._~".indexOf(c) >= 0;
      if (!ok) {
        throw new IllegalArgumentException(name + " contains '" + c + "': use [A-Za-z0-9/-._~]");
      }
    }
    return p;
  }

  static Currency currency(String name, String v) {
    try {
      return Currency.getInstance(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name + " must be an ISO 4217 currency code such as EUR, was " + v, e);
    }
  }

  private void duration(String name, java.util.function.Consumer<Duration> setter) {
    String v = string(name);
    if (v != null) {
      setter.accept(parseDuration(name, v));
    }
  }

  static Duration parseDuration(String name, String v) {
    try {
      if (v.toUpperCase(Locale.ROOT).startsWith("P")) {
        return Duration.parse(v);
      }
      return Duration.ofSeconds(Long.parseLong(v));
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException(
          name + " must be ISO-8601 (PT5M) or a number of seconds, was '" + v + "'", e);
    }
  }

  private static int integer(String name, String v) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, was '" + v + "'", e);
    }
  }

  private static long whole(String name, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, was '" + v + "'", e);
    }
  }

  private static <E extends Enum<E>> E choice(String name, String v, Class<E> type) {
    try {
      return Enum.valueOf(type, v.toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name
              + " must be one of "
              + java.util.Arrays.toString(type.getEnumConstants())
              + ", was '"
              + v
              + "'",
          e);
    }
  }

  private static double decimal(String name, String v) {
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, was '" + v + "'", e);
    }
  }

  private static boolean bool(String name, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default ->
          throw new IllegalArgumentException(name + " must be true or false, was '" + v + "'");
    };
  }
}
