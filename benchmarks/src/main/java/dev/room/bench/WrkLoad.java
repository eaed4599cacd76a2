package dev.room.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Load from {@code wrk}: one thread, a fixed number of keep-alive connections, latency percentiles.
 *
 * <p>Ticket rotation uses a small Lua script that builds each request's {@code room_ticket} cookie
 * from a counter, so every request carries a different synthetic client's token; the same script
 * drives the baseline so both sides pay the same client cost.
 */
final class WrkLoad implements Load.Generator {
  private static final Pattern RPS = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
  private static final Pattern TOTAL = Pattern.compile("(\\d+) requests in");
  private static final Pattern NON2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");
  private static final Pattern ERRORS =
      Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");
  private static final Pattern PERCENTILE =
      Pattern.compile("^\\s+(50|99)(?:\\.000)?%\\s+([0-9.]+)(us|ms|s)\\s*$", Pattern.MULTILINE);

  private final String wrk;
  private final int connections;
  private final Path script;

  WrkLoad(String wrk, int connections, Path workDir) throws IOException {
    this.wrk = wrk;
    this.connections = connections;
    this.script = workDir.resolve("rotate-tickets.lua");
    Files.writeString(script, luaScript(), StandardCharsets.UTF_8);
  }

  /** The wrk binary, or null when none is installed. */
  static String find() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, "wrk");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return null;
  }

  @Override
  public String describe() {
    return "wrk (" + version() + "), 1 thread, " + connections + " keep-alive connections";
  }

  @Override
  public Load run(String url, int seconds, int rotateTickets, long firstTicket) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(wrk);
    cmd.add("-t1");
    cmd.add("-c" + connections);
    cmd.add("-d" + seconds + "s");
    cmd.add("--timeout");
    cmd.add("5s");
    cmd.add("--latency");
    if (rotateTickets > 0) {
      cmd.add("-s");
      cmd.add(script.toString());
    }
    cmd.add(url);
    if (rotateTickets > 0) {
      cmd.add("--");
      cmd.add(Integer.toString(rotateTickets));
      cmd.add(HttpBench.TICKET_PREFIX);
      cmd.add(Long.toString(Math.floorMod(firstTicket, (long) rotateTickets)));
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(seconds + 30L, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("wrk failed on " + url + ":\n" + out);
    }
    return parse(out);
  }

  static Load parse(String out) throws IOException {
    double rps = Double.parseDouble(group(RPS, out, null));
    long total = Long.parseLong(group(TOTAL, out, null));
    long non2xx = Long.parseLong(group(NON2XX, out, "0"));
    long errors = 0;
    Matcher e = ERRORS.matcher(out);
    if (e.find()) {
      for (int i = 1; i <= 4; i++) {
        errors += Long.parseLong(e.group(i));
      }
    }
    double p50 = Double.NaN;
    double p99 = Double.NaN;
    Matcher m = PERCENTILE.matcher(out);
    while (m.find()) {
      double v = Double.parseDouble(m.group(2));
      double micros =
          switch (m.group(3)) {
            case "us" -> v;
            case "ms" -> v * 1_000;
            default -> v * 1_000_000;
          };
      if (m.group(1).equals("50")) {
        p50 = micros;
      } else {
        p99 = micros;
      }
    }
    return new Load(rps, p50, p99, total, non2xx, errors);
  }

  private static String group(Pattern p, String text, String fallback) throws IOException {
    Matcher m = p.matcher(text);
    if (m.find()) {
      return m.group(1);
    }
    if (fallback == null) {
      throw new IOException("unexpected wrk output:\n" + text);
    }
    return fallback;
  }

  private String version() {
    try {
      Process p = new ProcessBuilder(wrk, "-v").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
      String first = out.lines().findFirst().orElse("wrk");
      int copyright = first.indexOf(" Copyright");
      return (copyright > 0 ? first.substring(0, copyright) : first).strip();
    } catch (IOException e) {
      return "wrk";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "wrk";
    }
  }

  /** Cookie rotation: request k of a run carries synthetic client ((first + k) mod n) + 1. */
  private static String luaScript() {
    return String.join(
        "\n",
        "-- Rotates room_ticket cookies through n synthetic clients (see HttpBench.ticket).",
        "local n = 1",
        "local prefix = ''",
        "local i = 0",
        "function init(args)",
        "  n = tonumber(args[1])",
        "  prefix = args[2]",
        "  i = tonumber(args[3])",
        "end",
        "function request()",
        "  i = i + 1",
        "  if i > n then i = 1 end",
        "  return wrk.format('GET', nil,",
        "    { ['Cookie'] = 'room_ticket=' .. prefix .. string.format('%016x', i) })",
        "end",
        "");
  }
}
