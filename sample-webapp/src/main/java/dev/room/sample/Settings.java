package dev.room.sample;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The sample's configuration. Each setting is a command-line flag ({@code --capacity 50} or {@code
 * --capacity=50}), else an environment variable ({@code ROOM_CAPACITY=50}), else its default. Run
 * with {@code --help} for the list.
 */
final class Settings {
  String host = "127.0.0.1";
  int port = 8080;
  Path portFile;
  int capacity = 10;
  Duration work = Duration.ofMillis(500);
  Duration tokenTtl = Duration.ZERO;
  Duration firstPollGrace = Duration.ofSeconds(30);
  Duration reaperInterval = Duration.ofSeconds(30);
  long maxQueueDepth = 20_000;
  BigDecimal rate = new BigDecimal("2.50");
  BigDecimal surge = new BigDecimal("0.01");
  Duration passDuration = Duration.ofMinutes(90);
  String page = "default";
  boolean trustProxy;
  boolean secureCookie;
  Path stateFile = Path.of("room-line.json");
  Duration restoreMaxAge = Duration.ofMinutes(1);
  String adminToken;
  Path adminTokenFile = Path.of("room-admin-token");
  InstantSource clock = InstantSource.system(); // not a flag: tests move time by hand

  /** Thrown for {@code --help}: the caller prints {@link #usage()} and exits 0. */
  static final class HelpRequested extends Exception {
    private static final long serialVersionUID = 1L;
  }

  private record Option(
      String flag, String env, String arg, String help, BiConsumer<Settings, String> set) {}

  private static final List<Option> OPTIONS =
      List.of(
          new Option(
              "host",
              "ROOM_HOST",
              "ADDR",
              "address to listen on (default 127.0.0.1)",
              (s, v) -> s.host = v),
          new Option(
              "port",
              "PORT",
              "N",
              "port to listen on; 0 picks a free one (default 8080)",
              (s, v) -> s.port = integer("port", v, 0, 65_535)),
          new Option(
              "port-file",
              "ROOM_PORT_FILE",
              "FILE",
              "write the port here once listening",
              (s, v) -> s.portFile = Path.of(v)),
          new Option(
              "capacity",
              "ROOM_CAPACITY",
              "N",
              "requests served at once; the rest wait in line (default 10)",
              (s, v) -> s.capacity = integer("capacity", v, 1, 1_000_000)),
          new Option(
              "work",
              "ROOM_WORK",
              "TIME",
              "how long each shop request holds its slot (default 500ms)",
              (s, v) -> s.work = duration("work", v)),
          new Option(
              "token-ttl",
              "ROOM_TOKEN_TTL",
              "TIME",
              "sliding lifetime of an abandoned ticket (default 5m)",
              (s, v) -> s.tokenTtl = duration("token-ttl", v)),
          new Option(
              "first-poll-grace",
              "ROOM_FIRST_POLL_GRACE",
              "TIME",
              "reclaim tickets whose client never polls within this; 0 = off (default 30s)",
              (s, v) -> s.firstPollGrace = duration("first-poll-grace", v)),
          new Option(
              "reaper-interval",
              "ROOM_REAPER_INTERVAL",
              "TIME",
              "cadence of eviction passes (default 30s)",
              (s, v) -> s.reaperInterval = duration("reaper-interval", v)),
          new Option(
              "max-queue-depth",
              "ROOM_MAX_QUEUE_DEPTH",
              "N",
              "turn new arrivals away beyond this; 0 = unlimited (default 20000)",
              (s, v) -> s.maxQueueDepth = integer("max-queue-depth", v, 0, Integer.MAX_VALUE)),
          new Option(
              "rate",
              "ROOM_RATE",
              "AMOUNT",
              "skip-the-line price per place; 0 turns it off (default 2.50)",
              (s, v) -> s.rate = money("rate", v)),
          new Option(
              "surge",
              "ROOM_SURGE",
              "AMOUNT",
              "added to the rate per client waiting (default 0.01)",
              (s, v) -> s.surge = money("surge", v)),
          new Option(
              "pass-duration",
              "ROOM_PASS_DURATION",
              "TIME",
              "VIP pass lifetime after paying; 0 = no passes (default 90m)",
              (s, v) -> s.passDuration = duration("pass-duration", v)),
          new Option(
              "page",
              "ROOM_PAGE",
              "PAGE",
              "waiting page: default, shop (the bundled custom page) or an HTML file",
              (s, v) -> s.page = v),
          new Option(
              "trust-proxy",
              "ROOM_TRUST_PROXY",
              "BOOL",
              "client key from X-Forwarded-For (only behind your own proxy)",
              (s, v) -> s.trustProxy = bool("trust-proxy", v)),
          new Option(
              "secure-cookie",
              "ROOM_SECURE_COOKIE",
              "BOOL",
              "mark cookies Secure (behind TLS)",
              (s, v) -> s.secureCookie = bool("secure-cookie", v)),
          new Option(
              "state-file",
              "ROOM_STATE_FILE",
              "FILE",
              "line saved here on shutdown, restored on start; 'none' = off (default room-line.json)",
              (s, v) -> s.stateFile = v.isEmpty() || v.equals("none") ? null : Path.of(v)),
          new Option(
              "restore-max-age",
              "ROOM_RESTORE_MAX_AGE",
              "TIME",
              "a saved line older than this is from a past session and not restored; 0 = any age"
                  + " (default 1m)",
              (s, v) -> s.restoreMaxAge = duration("restore-max-age", v)),
          new Option(
              "admin-token",
              "ROOM_ADMIN_TOKEN",
              "TOKEN",
              "token for /admin; prefer the variable (flags show in ps). Unset: a random one is written to the admin token file",
              (s, v) -> s.adminToken = v),
          new Option(
              "admin-token-file",
              "ROOM_ADMIN_TOKEN_FILE",
              "FILE",
              "where a generated admin token is written, owner-only (default room-admin-token)",
              (s, v) -> s.adminTokenFile = Path.of(v)));

  /** Reads {@code env}, then {@code args} over it. */
  static Settings parse(String[] args, Map<String, String> env) throws HelpRequested {
    return parse(args, env, new Settings());
  }

  /** As {@link #parse(String[], Map)}, over {@code s}'s values instead of the defaults. */
  static Settings parse(String[] args, Map<String, String> env, Settings s) throws HelpRequested {
    for (Option o : OPTIONS) {
      String v = env.get(o.env());
      if (v != null && !v.isBlank()) {
        o.set().accept(s, v.strip());
      }
    }
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        throw new HelpRequested();
      }
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + a + "'; see --help");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      Option o = option(name);
      if (value == null) {
        boolean flagOnly =
            o.arg().equals("BOOL") && (i + 1 == args.length || args[i + 1].startsWith("--"));
        if (flagOnly) {
          value = "true";
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new IllegalArgumentException("--" + name + " needs a value; see --help");
        }
      }
      o.set().accept(s, value.strip());
    }
    return s;
  }

  static String usage() {
    StringBuilder b = new StringBuilder();
    b.append("room sample: a shop behind a virtual waiting room\n\n")
        .append("usage: java -jar room-sample.jar [--flag value]...\n\n")
        .append("Every flag can also be set with the environment variable shown.\n")
        .append(
            "TIME is 500ms, 30s, 5m, 2h, an ISO-8601 duration (PT5M) or a number of seconds.\n\n");
    for (Option o : OPTIONS) {
      String left = "  --" + o.flag() + " " + o.arg();
      b.append(String.format(Locale.ROOT, "%-30s %s%n%30s  [%s]%n", left, o.help(), "", o.env()));
    }
    b.append("\nPages: /            the shop (gated by the room)\n")
        .append("       /pay         fake skip-the-line payment (bypasses the room)\n")
        .append("       /admin       operator's dashboard (token required)\n")
        .append("       /metrics     Prometheus metrics\n");
    return b.toString();
  }

  private static Option option(String name) {
    for (Option o : OPTIONS) {
      if (o.flag().equals(name)) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown option --" + name + "; see --help");
  }

  static Duration duration(String name, String v) {
    String s = v.strip().toLowerCase(Locale.ROOT);
    try {
      if (s.startsWith("p")) {
        return Duration.parse(s.toUpperCase(Locale.ROOT));
      }
      if (s.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      }
      if (s.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
      }
      if (s.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
      }
      if (s.endsWith("h")) {
        return Duration.ofHours(Long.parseLong(s.substring(0, s.length() - 1)));
      }
      return Duration.ofSeconds(Long.parseLong(s));
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          "--" + name + ": '" + v + "' is not a duration (500ms, 30s, 5m, 2h, PT5M)", e);
    }
  }

  private static int integer(String name, String v, int min, int max) {
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new IllegalArgumentException("--" + name + " must be " + min + ".." + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + ": '" + v + "' is not a number", e);
    }
  }

  private static BigDecimal money(String name, String v) {
    try {
      BigDecimal m = new BigDecimal(v);
      if (m.signum() < 0) {
        throw new IllegalArgumentException("--" + name + " must not be negative");
      }
      return m;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + ": '" + v + "' is not an amount", e);
    }
  }

  private static boolean bool(String name, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "on" -> true;
      case "false", "no", "0", "off" -> false;
      default -> throw new IllegalArgumentException("--" + name + " must be true or false");
    };
  }

  /** For the start-up log: the settings, minus the admin token. */
  List<String> describe() {
    List<String> out = new ArrayList<>();
    out.add("capacity=" + capacity + " work=" + work.toMillis() + "ms");
    out.add(
        "first-poll-grace="
            + firstPollGrace.toSeconds()
            + "s reaper-interval="
            + reaperInterval.toSeconds()
            + "s max-queue-depth="
            + maxQueueDepth);
    out.add(
        "rate=" + rate + " surge=" + surge + " pass-duration=" + passDuration.toMinutes() + "m");
    out.add(
        "page="
            + page
            + " state-file="
            + (stateFile == null
                ? "none"
                : stateFile + " restore-max-age=" + restoreMaxAge.toSeconds() + "s"));
    return out;
  }
}
