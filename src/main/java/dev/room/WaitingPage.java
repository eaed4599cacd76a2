package dev.room;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The waiting page: a template split once at its placeholders, then filled per request with the
 * visitor's state as the server sees it, so the first frame is already right (a visitor arriving
 * during a pause never sees a moving bar), before any poll.
 *
 * <p>Placeholders: {@code {{.Position}}}, {@code {{.SkipURL}}} (HTML-escaped), {@code
 * {{.StatusURL}}} (escaped for a script string), {@code {{.ProbeCookie}}}, {@code {{.Title}}} (the
 * state's title, HTML-escaped), {@code {{.Status}}} (the status JSON a poll would return now, a
 * script literal) and {@code {{.Texts}}} (the page's titles and sentences, a script literal). The
 * first two keep pages written for the Go library working unchanged.
 */
final class WaitingPage {
  private static final String[] NAMES = {
    "{{.Position}}",
    "{{.SkipURL}}",
    "{{.StatusURL}}",
    "{{.ProbeCookie}}",
    "{{.Title}}",
    "{{.Status}}",
    "{{.Texts}}"
  };
  private static final int POSITION = 0;
  private static final int SKIP_URL = 1;
  private static final int STATUS_URL = 2;
  private static final int PROBE_COOKIE = 3;
  private static final int TITLE = 4;
  private static final int STATUS = 5;
  private static final int TEXTS = 6;

  static final String TITLE_WAITING = "You're in line";
  static final String TITLE_PAUSED = "Admission is paused";
  static final String TITLE_CLOSED = "This sale has closed";
  static final String TITLE_PRESALE = "The sale opens soon";
  static final String TITLE_OFFERED = "It's your turn!";
  static final String TITLE_COOKIES = "Cookies are needed to keep your place";
  static final String TITLE_RECONNECTING = "Reconnecting…";
  static final String TITLE_MOVED = "Your place moved to another device";

  static final String RECONNECTING_KEPT = "Reconnecting… your place is kept.";
  static final String RECONNECTING_NOT_KEPT =
      "Reconnecting… this page keeps trying by itself. Should the site have restarted, you will be"
          + " given a new place in line.";

  /** The page's words for a line that outlives a restart, and for one that does not. */
  private static final String TEXTS_KEPT = texts(RECONNECTING_KEPT);

  private static final String TEXTS_NOT_KEPT = texts(RECONNECTING_NOT_KEPT);

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

  /** The page for a visitor in line, as it stands. */
  byte[] render(WaitingRoom room, HttpServletRequest req, Admission.Queued q, String statusUrl) {
    return render(
        q.position(),
        room.web().skipUrl,
        statusUrl,
        Cookies.name(room, Cookies.PROBE),
        title(room),
        StatusEndpoint.body(room, req, q),
        room.web().linePersisted ? TEXTS_KEPT : TEXTS_NOT_KEPT);
  }

  /** The title of the state the room is in, as the page's script names it from the status. */
  static String title(WaitingRoom room) {
    return switch (room.mode()) {
      case PAUSED -> TITLE_PAUSED;
      case CLOSED -> TITLE_CLOSED;
      default -> room.sale().presalePending() ? TITLE_PRESALE : TITLE_WAITING;
    };
  }

  byte[] render(
      long position,
      String skipUrl,
      String statusUrl,
      String probeCookie,
      String title,
      String status,
      String texts) {
    StringBuilder out = new StringBuilder(source.length() + status.length() + texts.length());
    for (int i = 0; i < holes.length; i++) {
      out.append(literals[i]);
      switch (holes[i]) {
        case POSITION -> out.append(position);
        case SKIP_URL -> escape(skipUrl, out);
        case STATUS_URL -> escapeScript(statusUrl, out);
        case PROBE_COOKIE -> out.append(probeCookie);
        case TITLE -> escape(title, out);
        case STATUS -> out.append(status); // JSON with <, > and & escaped: safe in a script
        case TEXTS -> out.append(texts);
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

  private static String texts(String reconnecting) {
    StringBuilder b = new StringBuilder(1024).append("{\"titles\":{");
    pair(b, "waiting", TITLE_WAITING).append(',');
    pair(b, "paused", TITLE_PAUSED).append(',');
    pair(b, "closed", TITLE_CLOSED).append(',');
    pair(b, "presale", TITLE_PRESALE).append(',');
    pair(b, "offered", TITLE_OFFERED).append(',');
    pair(b, "cookies", TITLE_COOKIES).append(',');
    pair(b, "reconnecting", TITLE_RECONNECTING).append(',');
    pair(b, "moved", TITLE_MOVED).append("},\"explain\":{");
    pair(b, "paused", Standing.PAUSED_MESSAGE).append(',');
    pair(b, "closed", Standing.CLOSED_MESSAGE).append(',');
    pair(b, "presale", Standing.PRESALE_MESSAGE).append(',');
    pair(b, "queue_all", Standing.QUEUE_ALL_MESSAGE).append(',');
    pair(b, "moved", Standing.MOVED_MESSAGE).append("},");
    return pair(b, "reconnecting", reconnecting).append('}').toString();
  }

  private static StringBuilder pair(StringBuilder b, String key, String value) {
    StatusEndpoint.quote(key, b);
    b.append(':');
    StatusEndpoint.quote(value, b);
    return b;
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
