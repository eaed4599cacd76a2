package dev.room.spring;

import dev.room.WaitingRoom;
import dev.room.spi.Line;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.util.ClassUtils;

/** Builds a {@link WaitingRoom} from {@code room.*}; a bad value names its property. */
final class RoomFactory {
  private static final String LETTUCE = "io.lettuce.core.RedisClient";

  private RoomFactory() {}

  static WaitingRoom build(
      RoomProperties p, List<WaitingRoomCustomizer> customizers, WorkerThreads threads) {
    Integer capacity = p.getCapacity();
    if (capacity == null) {
      int max = threads.maxCapacity();
      throw new RoomConfigurationException(
          "room.capacity is not set: the waiting room needs to know how many requests it may"
              + " serve at once.",
          "Set room.capacity"
              + (max == Integer.MAX_VALUE ? "" : " (at most " + max + " on " + threads + ")")
              + " in application.properties, define a WaitingRoom bean of your own, or turn the"
              + " room off with room.enabled=false.",
          null);
    }
    threads.check(capacity, "room.capacity");
    WaitingRoom.Builder b = WaitingRoom.builder();
    set("room.capacity", capacity, b::capacity);
    set("room.token-ttl", p.getTokenTtl(), b::tokenTtl);
    set("room.reaper-interval", p.getReaperInterval(), b::reaperInterval);
    set("room.first-poll-grace", p.getFirstPollGrace(), b::firstPollGrace);
    set("room.offer-timeout", p.getOfferTimeout(), b::offerTimeout);
    set("room.max-queue-depth", p.getMaxQueueDepth(), b::maxQueueDepth);
    set("room.queue-full-status", p.getQueueFullStatus(), b::queueFullStatus);
    set("room.join-limit", p.getJoinLimit(), b::joinLimit);
    set("room.join-challenge", p.getJoinChallenge(), b::joinChallenge);
    set("room.secure-cookie", p.getSecureCookie(), b::secureCookie);
    set("room.cookie-path", p.getCookiePath(), b::cookiePath);
    set("room.cookie-domain", p.getCookieDomain(), b::cookieDomain);
    set("room.skip-url", p.getSkipUrl(), b::skipUrl);
    set("room.pass-duration", p.getPassDuration(), b::passDuration);
    set("room.name", p.getName(), b::name);
    set("room.admission-mode", p.getAdmissionMode(), b::admissionMode);
    set("room.session-duration", p.getSessionDuration(), b::sessionDuration);
    set("room.session-max-duration", p.getSessionMaxDuration(), b::sessionMaxDuration);
    set("room.mode", p.getMode(), b::mode);
    set("room.announcement", p.getAnnouncement(), b::announcement);
    set("room.admission-rate", p.getAdmissionRate(), b::admissionRate);
    set("room.currency", p.getCurrency(), b::currency);
    set("room.line-persisted", p.getLinePersisted(), b::linePersisted);
    if (p.getHtml() != null) {
      set("room.html", html(p), b::html);
    }
    signingKey(p.getSigningKey(), b);
    Line line = line(p);
    try {
      if (line != null) {
        b.line(line);
      }
      customizers.forEach(c -> c.customize(b));
      try {
        return b.build();
      } catch (IllegalArgumentException e) {
        throw bad(propertyOf(e.getMessage()), e); // the builder checks some values only here
      }
    } catch (RuntimeException e) {
      if (line != null) {
        line.close();
      }
      throw e;
    }
  }

  private static String html(RoomProperties p) {
    try (var in = p.getHtml().getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new RoomConfigurationException(
          "room.html: cannot read " + p.getHtml().getDescription() + ": " + e.getMessage(),
          "Point room.html at a readable page (classpath:/waiting.html, file:/srv/waiting.html).",
          e);
    }
  }

  private static void signingKey(RoomProperties.SigningKey key, WaitingRoom.Builder b) {
    if (key.getId() == null && key.getSecret() == null) {
      return;
    }
    if (key.getId() == null || key.getSecret() == null) {
      throw new RoomConfigurationException(
          "room.signing-key needs both an id and a secret.",
          "Set room.signing-key.id and room.signing-key.secret (base64), or neither.",
          null);
    }
    byte[] secret;
    try {
      secret = Base64.getDecoder().decode(key.getSecret().strip());
    } catch (IllegalArgumentException e) {
      throw bad("room.signing-key.secret", new IllegalArgumentException("not base64", e));
    }
    try {
      b.signingKey(key.getId(), secret);
    } catch (IllegalArgumentException e) {
      throw bad("room.signing-key", e);
    }
  }

  private static Line line(RoomProperties p) {
    RoomProperties.Redis redis = p.getRedis();
    if (redis.getUri() == null || redis.getUri().isBlank()) {
      return null;
    }
    if (!ClassUtils.isPresent(LETTUCE, RoomFactory.class.getClassLoader())) {
      throw new RoomConfigurationException(
          "room.redis.uri is set, but Lettuce is not on the class path, so the room cannot reach"
              + " Redis (and will not quietly fall back to a line of its own).",
          "Add the dependency io.lettuce:lettuce-core, or remove room.redis.uri.",
          null);
    }
    String roomId = redis.getRoomId() != null ? redis.getRoomId() : p.getName();
    if (roomId == null || roomId.isBlank()) {
      throw new RoomConfigurationException(
          "room.redis.uri is set without room.redis.room-id: the id decides which instances share"
              + " one line.",
          "Set room.redis.room-id (or room.name, which it defaults to).",
          null);
    }
    return RedisLines.build(redis, roomId);
  }

  /**
   * The property behind a builder's message, which starts with the setting's name ({@code tokenTtl
   * must be ...} is {@code room.token-ttl}).
   */
  static String propertyOf(String message) {
    if (message == null) {
      return "room.*";
    }
    int end = 0;
    while (end < message.length() && Character.isLetter(message.charAt(end))) {
      end++;
    }
    String setting = message.substring(0, end);
    if (setting.isEmpty() || !Character.isLowerCase(setting.charAt(0))) {
      return "room.*";
    }
    return "room." + setting.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
  }

  /** Applies {@code value} unless unset; a value the builder refuses names {@code property}. */
  static <T> void set(String property, T value, Consumer<T> setter) {
    if (value == null) {
      return;
    }
    try {
      setter.accept(value);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw bad(property, e);
    }
  }

  static RoomConfigurationException bad(String property, RuntimeException e) {
    return new RoomConfigurationException(
        property + " is invalid: " + e.getMessage(),
        "Change " + property + " in your application properties.",
        e);
  }
}
