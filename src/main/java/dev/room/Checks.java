package dev.room;

import java.time.Duration;

/** Validation of configuration values: one place, one message shape. */
final class Checks {
  private Checks() {}

  /**
   * A bad value for a setting. The setting's Java name is kept apart from the problem so a front
   * that spells settings its own way ({@code web.xml}'s {@code token-ttl}) names what its user
   * wrote.
   */
  static final class Invalid extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The setting's name as the Java API spells it, such as {@code tokenTtl}. */
    final String setting;

    /** What is wrong, after the name: {@code must not be negative, was -1}. */
    final String problem;

    Invalid(String setting, String problem) {
      super(setting + " " + problem);
      this.setting = setting;
      this.problem = problem;
    }
  }

  static IllegalArgumentException invalid(String setting, String problem) {
    return new Invalid(setting, problem);
  }

  static int capacity(int capacity) {
    if (capacity < 1) {
      throw invalid("capacity", "must be at least 1, was " + capacity);
    }
    return capacity;
  }

  /**
   * Validates a duration: {@code ZERO} maps to {@code zeroMeans}; anything else must lie in [{@code
   * min}, {@code max}].
   */
  static Duration duration(
      String name, Duration d, Duration zeroMeans, Duration min, Duration max) {
    if (d == null) {
      throw invalid(name, "must not be null");
    }
    if (d.isNegative()) {
      throw invalid(name, "must not be negative, was " + d);
    }
    if (d.isZero()) {
      return zeroMeans;
    }
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw invalid(name, "must be ZERO or between " + min + " and " + max + ", was " + d);
    }
    return d;
  }

  static long nonNegative(String name, long v) {
    if (v < 0) {
      throw invalid(name, "must not be negative, was " + v);
    }
    return v;
  }

  /** A value that goes into a Set-Cookie attribute: no separators or control characters. */
  static String cookieAttribute(String name, String v, boolean mustBePath) {
    if (v == null) {
      throw invalid(name, "must not be null");
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < 0x21 || c > 0x7e || c == ';' || c == ',') {
        throw invalid(name, "contains a character not allowed in a cookie");
      }
    }
    if (mustBePath && !v.startsWith("/")) {
      throw invalid(name, "must start with '/', was " + v);
    }
    return v;
  }

  static int rejectStatus(int status) {
    if (status != 503 && status != 429) {
      throw invalid("queueFullStatus", "must be 503 or 429, was " + status);
    }
    return status;
  }

  static long target(long target) {
    if (target < 1) {
      throw invalid("targetPosition", "must be at least 1, was " + target);
    }
    return target;
  }

  /** Caps a client key at 256 UTF-8 bytes without splitting a character. */
  static String clientKey(String key) {
    if (key == null) {
      return "";
    }
    int bytes = 0;
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      int n = c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isHighSurrogate(c) ? 4 : 3;
      if (bytes + n > 256) {
        return key.substring(0, i);
      }
      bytes += n;
      if (n == 4) {
        i++;
      }
    }
    return key;
  }
}
