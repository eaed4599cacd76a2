package dev.room.audit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One parsed log line: a flat JSON object of strings, whole numbers, booleans and arrays of whole
 * numbers (all an entry holds). The JDK alone reads it, so the verifier runs from the bare jar.
 */
final class LogEntry {
  private final Map<String, Object> members = new LinkedHashMap<>();
  private final String line;
  private int at;

  private LogEntry(String line) {
    this.line = line;
  }

  /**
   * Parses {@code line}, the log's line {@code number} (for messages).
   *
   * @throws IllegalArgumentException when it is not such an object
   */
  static LogEntry parse(String line, long number) {
    LogEntry e = new LogEntry(line);
    try {
      e.object();
    } catch (IndexOutOfBoundsException | NumberFormatException x) {
      throw new IllegalArgumentException("line " + number + " is not a log entry", x);
    }
    return e;
  }

  boolean has(String name) {
    return members.containsKey(name);
  }

  long number(String name) {
    if (members.get(name) instanceof Long v) {
      return v;
    }
    throw new IllegalArgumentException("no number \"" + name + "\"");
  }

  String string(String name) {
    if (members.get(name) instanceof String v) {
      return v;
    }
    throw new IllegalArgumentException("no string \"" + name + "\"");
  }

  boolean bool(String name) {
    if (members.get(name) instanceof Boolean v) {
      return v;
    }
    throw new IllegalArgumentException("no boolean \"" + name + "\"");
  }

  long[] numbers(String name) {
    if (members.get(name) instanceof long[] v) {
      return v;
    }
    throw new IllegalArgumentException("no array \"" + name + "\"");
  }

  private void object() {
    expect('{');
    if (peek() != '}') {
      do {
        String k = string();
        expect(':');
        if (members.put(k, value()) != null) {
          throw new IllegalArgumentException("member \"" + k + "\" twice");
        }
      } while (take(','));
    }
    expect('}');
    if (at != line.length()) {
      throw new IllegalArgumentException("text after the entry");
    }
  }

  private Object value() {
    char c = peek();
    if (c == '"') {
      return string();
    } else if (c == '[') {
      at++;
      List<Long> v = new ArrayList<>();
      if (peek() != ']') {
        do {
          v.add(whole());
        } while (take(','));
      }
      expect(']');
      return v.stream().mapToLong(Long::longValue).toArray();
    } else if (line.startsWith("true", at)) {
      at += 4;
      return true;
    } else if (line.startsWith("false", at)) {
      at += 5;
      return false;
    }
    return whole();
  }

  private long whole() {
    int from = at;
    if (peek() == '-') {
      at++;
    }
    while (at < line.length() && Character.isDigit(line.charAt(at))) {
      at++;
    }
    return Long.parseLong(line.substring(from, at));
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = line.charAt(at++);
      if (c == '"') {
        return b.toString();
      } else if (c == '\\') {
        char e = line.charAt(at++);
        if (e == 'u') {
          b.append((char) Integer.parseInt(line.substring(at, at + 4), 16));
          at += 4;
        } else {
          b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }

  private char peek() {
    return line.charAt(at);
  }

  private boolean take(char c) {
    if (at < line.length() && line.charAt(at) == c) {
      at++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!take(c)) {
      throw new IllegalArgumentException("expected '" + c + "' at column " + (at + 1));
    }
  }
}
