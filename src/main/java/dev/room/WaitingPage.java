package dev.room;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The waiting page: a template split once at its placeholders, then filled per request.
 *
 * <p>Placeholders: {@code {{.Position}}}, {@code {{.SkipURL}}} (HTML-escaped), {@code
 * {{.StatusURL}}} (escaped for a script string) and {@code {{.ProbeCookie}}}. The first two keep
 * pages written for the Go library working unchanged.
 */
final class WaitingPage {
  private static final String[] NAMES = {
    "{{.Position}}", "{{.SkipURL}}", "{{.StatusURL}}", "{{.ProbeCookie}}"
  };
  private static final int POSITION = 0;
  private static final int SKIP_URL = 1;
  private static final int STATUS_URL = 2;
  private static final int PROBE_COOKIE = 3;

  static final WaitingPage DEFAULT = new WaitingPage(load("waiting-page.html"));

  private final String source;
  private final String[] literals;
  private final int[] holes;

  WaitingPage(String source) {
    this.source = source;
    List<String> lits = new ArrayList<>();
    List<Integer> hs = new ArrayList<>();
    int from = 0;
    while (true) {
      int best = -1;
      int bestAt = Integer.MAX_VALUE;
      for (int i = 0; i < NAMES.length; i++) {
        int at = source.indexOf(NAMES[i], from);
        if (at >= 0 && at < bestAt) {
          best = i;
          bestAt = at;
        }
      }
      if (best < 0) {
        lits.add(source.substring(from));
        break;
      }
      lits.add(source.substring(from, bestAt));
      hs.add(best);
      from = bestAt + NAMES[best].length();
    }
    this.literals = lits.toArray(new String[0]);
    this.holes = hs.stream().mapToInt(Integer::intValue).toArray();
  }

  String source() {
    return source;
  }

  byte[] render(long position, String skipUrl, String statusUrl, String probeCookie) {
    StringBuilder out = new StringBuilder(source.length() + 64);
    for (int i = 0; i < holes.length; i++) {
      out.append(literals[i]);
      switch (holes[i]) {
        case POSITION -> out.append(position);
        case SKIP_URL -> escape(skipUrl, out);
        case STATUS_URL -> escapeScript(statusUrl, out);
        case PROBE_COOKIE -> out.append(probeCookie);
        default -> throw new IllegalStateException("unknown placeholder");
      }
    }
    out.append(literals[holes.length]);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  static void escape(String s, StringBuilder out) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
  }

  /** Escapes for a double-quoted string inside a script element. */
  static void escapeScript(String s, StringBuilder out) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == '\'' || c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
  }

  private static String load(String name) {
    try (InputStream in = WaitingPage.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
