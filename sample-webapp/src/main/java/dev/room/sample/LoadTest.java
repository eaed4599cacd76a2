package dev.room.sample;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hundreds of simulated browsers against a running sample, with a live terminal dashboard.
 *
 * <pre>
 * java -cp target/room-sample.jar dev.room.sample.LoadTest --url http://127.0.0.1:8080 \
 *     --browsers 400 [--ramp 5s] [--poll 1000ms] [--abandon 5] [--payers 4] [--deadline 150s] \
 *     [--dashboard auto|tty|lines]
 * </pre>
 *
 * <p>Each browser keeps its own cookies and behaves like the waiting page: it loads {@code /}; when
 * it gets the waiting page it polls {@code /queue/status} about once a second (honouring 429's
 * Retry-After) and reloads {@code /} when told it is ready. A few abandon their tab right after
 * getting a ticket (the room reclaims them: the "evictions" column); a few pay to skip the line on
 * the fake payment page, then come back later with their VIP pass. With {@code ROOM_ADMIN_TOKEN}
 * set, the dashboard also shows the server's own numbers from {@code /admin/api/state}.
 *
 * <p>Exits 1 when anyone was admitted out of order or lost, else 0. Out of order: browser A got its
 * ticket strictly before browser B first asked for the page, B (who did not pay) was admitted, and
 * a poll A sent after that still had A waiting. Lost: a browser that did not abandon and was not
 * admitted by the deadline, or whose ticket stopped being recognised.
 *
 * <p>All traffic goes to the {@code --url} given (test.sh passes a loopback address); every loop is
 * bounded by the deadline.
 */
public final class LoadTest {
  private static final Pattern POSITION = Pattern.compile("id=\"position\"[^>]*>\\s*(\\d+)\\s*<");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Options o;
  private final HttpClient http;
  private final long start = System.nanoTime();
  private final long deadline;
  private final List<SimBrowser> browsers = new ArrayList<>();
  private final PrintStream out = System.out;
  private final boolean tty;
  private int drawn;

  private LoadTest(Options o) {
    this.o = o;
    this.deadline = start + o.deadline.toNanos();
    this.tty =
        switch (o.dashboard) {
          case "tty" -> true;
          case "lines" -> false;
          default -> System.console() != null;
        };
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * The HTTP side only, for {@link Demo}'s crowd: browsers made with it poll every {@code poll},
   * until {@code lifetime} from now.
   */
  static LoadTest client(String url, Duration poll, Duration lifetime) {
    Options o = new Options();
    o.url = url;
    o.poll = poll;
    o.deadline = lifetime;
    o.adminToken = null;
    return new LoadTest(o);
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    if (o == null) {
      return;
    }
    System.exit(new LoadTest(o).run());
  }

  int run() throws InterruptedException {
    out.printf(
        Locale.ROOT,
        "room load test: %d browsers → %s (ramp %ds, %d%% abandon, %d pay to skip)%n%n",
        o.browsers,
        o.url,
        o.ramp.toSeconds(),
        o.abandonPercent,
        o.payers);
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    // Payers arrive in the second half of the crowd, so they have places to skip.
    Set<Integer> payers = new HashSet<>();
    for (int j = 0; j < Math.min(o.payers, o.browsers / 2); j++) {
      payers.add(o.browsers / 2 + j * (o.browsers / 2) / Math.max(1, o.payers));
    }
    for (int i = 0; i < o.browsers; i++) {
      SimBrowser.Kind kind = SimBrowser.Kind.PATIENT;
      if (payers.contains(i)) {
        kind = SimBrowser.Kind.PAYS;
      } else if (rnd.nextInt(100) < o.abandonPercent) {
        kind = SimBrowser.Kind.ABANDONS;
      }
      long delay = o.ramp.toNanos() * i / Math.max(1, o.browsers);
      browsers.add(new SimBrowser(i, kind, this, start + delay));
    }
    List<Thread> threads = new ArrayList<>();
    for (SimBrowser b : browsers) {
      Thread t = new Thread(b, "browser-" + b.id);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    // The dashboard: one frame a second until everyone is done or the deadline passes.
    while (System.nanoTime() < deadline + Duration.ofSeconds(15).toNanos()) {
      boolean allDone = threads.stream().noneMatch(Thread::isAlive);
      draw(serverState());
      if (allDone) {
        break;
      }
      Thread.sleep(1000); // the dashboard's refresh cadence (this is a load client, not a test)
    }
    return summary();
  }

  // ── HTTP, for the browsers ─────────────────────────────────────────────

  HttpResponse<String> send(HttpRequest req) throws IOException, InterruptedException {
    return http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  URI uri(String path) {
    return URI.create(o.url + path);
  }

  long deadline() {
    return deadline;
  }

  Duration pollInterval() {
    return o.poll;
  }

  static int position(String page) {
    Matcher m = POSITION.matcher(page);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  static JsonNode json(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  private JsonNode serverState() {
    if (o.adminToken == null) {
      return null;
    }
    try {
      HttpRequest req =
          HttpRequest.newBuilder(uri("/admin/api/state?limit=1"))
              .timeout(Duration.ofSeconds(5))
              .header("Authorization", "Bearer " + o.adminToken)
              .header("Accept", "application/json")
              .build();
      HttpResponse<String> res = send(req);
      return res.statusCode() == 200 ? json(res.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  // ── The dashboard ──────────────────────────────────────────────────────

  private void draw(JsonNode s) {
    long t = Duration.ofNanos(System.nanoTime() - start).toSeconds();
    int waiting = 0;
    int admitted = 0;
    int abandoned = 0;
    int lost = 0;
    int notStarted = 0;
    for (SimBrowser b : browsers) {
      switch (b.state()) {
        case NOT_STARTED -> notStarted++;
        case WAITING -> waiting++;
        case ADMITTED -> admitted++;
        case ABANDONED -> abandoned++;
        case LOST -> lost++;
        default -> {}
      }
    }
    long[] waits = waits();
    String server =
        o.adminToken == null
            ? "(set ROOM_ADMIN_TOKEN to see the server's numbers)"
            : s == null
                ? "server not answering (restarting?)"
                : String.format(
                    Locale.ROOT,
                    "in flight %3d/%-3d  queue depth %4d  admitted/s %5.1f  evictions %3d",
                    s.path("inFlight").asInt(),
                    s.path("capacity").asInt(),
                    s.path("queueDepth").asLong(),
                    s.path("admittedPerSecond").asDouble(),
                    s.path("totals").path("evict").asLong()
                        + s.path("totals").path("timeout").asLong());
    String clients =
        String.format(
            Locale.ROOT,
            "waiting %4d  admitted %4d  abandoned %3d  lost %2d  not started %3d",
            waiting,
            admitted,
            abandoned,
            lost,
            notStarted);
    String latency =
        String.format(
            Locale.ROOT,
            "wait p50 %5.1fs  p99 %5.1fs  (%d admitted after queueing)",
            percentile(waits, 50) / 1000.0,
            percentile(waits, 99) / 1000.0,
            waits.length);
    if (!tty) {
      out.printf(Locale.ROOT, "t=%3ds  %s | %s | %s%n", t, server, clients, latency);
      return;
    }
    List<String> frame = new ArrayList<>();
    frame.add(
        String.format(Locale.ROOT, "  ── room ─────────────────────────────────── t=%3ds ──", t));
    if (s != null) {
      int cap = Math.max(1, s.path("capacity").asInt());
      frame.add(
          String.format(
              Locale.ROOT,
              "  in flight    %5d / %-5d %s",
              s.path("inFlight").asInt(),
              cap,
              bar(s.path("inFlight").asInt(), cap, 30)));
      frame.add(
          String.format(
              Locale.ROOT,
              "  queue depth  %5d         %s",
              s.path("queueDepth").asLong(),
              bar(s.path("queueDepth").asLong(), Math.max(1, o.browsers), 30)));
      frame.add(
          String.format(
              Locale.ROOT,
              "  admitted/s   %7.1f       total %d",
              s.path("admittedPerSecond").asDouble(),
              s.path("totals").path("enter").asLong()));
      frame.add(
          String.format(
              Locale.ROOT,
              "  evictions    %5d         (timed out %d, promoted %d)",
              s.path("totals").path("evict").asLong(),
              s.path("totals").path("timeout").asLong(),
              s.path("totals").path("promote").asLong()));
    } else {
      frame.add("  " + server);
      frame.add("");
      frame.add("");
      frame.add(""); // same height as a frame with numbers, so the redraw lines up
    }
    frame.add("  ── browsers ─────────────────────────────────────────────");
    frame.add("  " + clients);
    frame.add("  " + latency);
    if (drawn > 0) {
      out.print("\033[" + drawn + "F");
    }
    for (String line : frame) {
      out.print(line + "\033[K\n");
    }
    out.flush();
    drawn = frame.size();
  }

  private static String bar(long value, long max, int width) {
    int n = (int) Math.min(width, Math.round((double) value * width / max));
    return "█".repeat(n) + "·".repeat(width - n);
  }

  private long[] waits() {
    return browsers.stream()
        .filter(b -> b.ticketAt > 0 && b.admittedAt > 0)
        .mapToLong(b -> Duration.ofNanos(b.admittedAt - b.firstSent).toMillis())
        .sorted()
        .toArray();
  }

  private static long percentile(long[] sorted, int p) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  // ── The verdict ────────────────────────────────────────────────────────

  private int summary() {
    int fast = 0;
    int queued = 0;
    int abandoned = 0;
    int turnedAway = 0;
    int retried = 0;
    int paid = 0;
    int vipAtFront = 0;
    int vipQueued = 0;
    List<String> lost = new ArrayList<>();
    for (SimBrowser b : browsers) {
      switch (b.state()) {
        case ADMITTED -> {
          if (b.ticketAt > 0) {
            queued++;
          } else {
            fast++;
          }
        }
        case ABANDONED -> abandoned++;
        case TURNED_AWAY -> turnedAway++;
        default -> lost.add("browser " + b.id + ": " + b.problem());
      }
      if (b.paid) {
        paid++;
      }
      if (b.turnedAway > 0) {
        retried++;
      }
      if (b.vipEntryPosition == 1) {
        vipAtFront++;
      } else if (b.vipEntryPosition > 1) {
        vipQueued++;
        lost.add(
            "browser "
                + b.id
                + ": came back with a VIP pass but was queued at "
                + b.vipEntryPosition
                + ", not at the front");
      }
    }
    List<String> outOfOrder = outOfOrder(browsers, start);
    long[] waits = waits();
    out.println();
    out.println("── summary ─────────────────────────────────────────────────");
    out.printf(
        Locale.ROOT,
        "browsers %d: admitted %d (%d at once, %d after queueing), abandoned %d, turned away %d%n",
        browsers.size(),
        fast + queued,
        fast,
        queued,
        abandoned,
        turnedAway);
    if (retried > 0) {
      out.printf(Locale.ROOT, "%d browsers found the shop restarting and tried again%n", retried);
    }
    out.printf(
        Locale.ROOT,
        "paid to skip %d; VIP pass re-entries at the front %d, behind %d%n",
        paid,
        vipAtFront,
        vipQueued);
    out.printf(
        Locale.ROOT,
        "wait after queueing: p50 %.1fs  p99 %.1fs  max %.1fs%n",
        percentile(waits, 50) / 1000.0,
        percentile(waits, 99) / 1000.0,
        waits.length == 0 ? 0 : waits[waits.length - 1] / 1000.0);
    out.printf(Locale.ROOT, "admitted out of order: %d%n", outOfOrder.size());
    outOfOrder.stream().limit(5).forEach(s -> out.println("  " + s));
    out.printf(Locale.ROOT, "lost: %d%n", lost.size());
    lost.stream().limit(10).forEach(s -> out.println("  " + s));
    boolean ok = outOfOrder.isEmpty() && lost.isEmpty() && fast + queued > 0;
    out.println(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  }

  /**
   * Browsers still told to wait after someone who arrived strictly later (and did not pay) was
   * admitted. Compared on this process's monotonic clock, so only causally ordered pairs count.
   */
  static List<String> outOfOrder(List<SimBrowser> browsers, long start) {
    SimBrowser[] admitted =
        browsers.stream()
            .filter(b -> b.admittedAt > 0 && !b.paid)
            .sorted(Comparator.comparingLong(b -> b.admittedAt))
            .toArray(SimBrowser[]::new);
    long[] admittedAt = Arrays.stream(admitted).mapToLong(b -> b.admittedAt).toArray();
    // latest[i]: among the first i+1 admissions, the one whose browser arrived last.
    SimBrowser[] latest = new SimBrowser[admitted.length];
    for (int i = 0; i < admitted.length; i++) {
      latest[i] =
          i > 0 && latest[i - 1].firstSent >= admitted[i].firstSent ? latest[i - 1] : admitted[i];
    }
    List<String> found = new ArrayList<>();
    for (SimBrowser a : browsers) {
      if (a.ticketAt == 0) {
        continue;
      }
      for (long[] poll : a.waitingPolls()) {
        long sent = poll[0];
        int i = Arrays.binarySearch(admittedAt, sent);
        int before = i >= 0 ? i : -i - 1; // admissions strictly before the poll was sent
        if (before > 0 && latest[before - 1].firstSent > a.ticketAt) {
          SimBrowser b = latest[before - 1];
          found.add(
              String.format(
                  Locale.ROOT,
                  "browser %d (ticket at %.3fs) still at position %d at %.3fs, after browser %d"
                      + " (arrived %.3fs) was admitted at %.3fs",
                  a.id,
                  (a.ticketAt - start) / 1e9,
                  poll[1],
                  (sent - start) / 1e9,
                  b.id,
                  (b.firstSent - start) / 1e9,
                  (b.admittedAt - start) / 1e9));
          break;
        }
      }
    }
    return found;
  }

  // ── Options ────────────────────────────────────────────────────────────

  private static final class Options {
    String url = "http://127.0.0.1:8080";
    int browsers = 400;
    Duration ramp = Duration.ofSeconds(5);
    Duration poll = Duration.ofMillis(1000);
    int abandonPercent = 5;
    int payers = 4;
    Duration deadline = Duration.ofSeconds(150);
    String dashboard = "auto";
    String adminToken = System.getenv("ROOM_ADMIN_TOKEN");

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (a.equals("--help") || a.equals("-h")) {
          System.out.println(
              "usage: LoadTest [--url URL] [--browsers N] [--ramp TIME] [--poll TIME]"
                  + " [--abandon PERCENT] [--payers N] [--deadline TIME]"
                  + " [--dashboard auto|tty|lines]\n"
                  + "ROOM_ADMIN_TOKEN (environment) lets the dashboard show the server's numbers.");
          return null;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        String v = args[++i];
        switch (a) {
          case "--url" -> o.url = v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
          case "--browsers" -> o.browsers = Integer.parseInt(v);
          case "--ramp" -> o.ramp = Settings.duration("ramp", v);
          case "--poll" -> o.poll = Settings.duration("poll", v);
          case "--abandon" -> o.abandonPercent = Integer.parseInt(v);
          case "--payers" -> o.payers = Integer.parseInt(v);
          case "--deadline" -> o.deadline = Settings.duration("deadline", v);
          case "--dashboard" -> o.dashboard = v;
          default -> throw new IllegalArgumentException("unknown option " + a);
        }
      }
      if (o.browsers < 1 || o.browsers > 5000) {
        throw new IllegalArgumentException("--browsers must be 1..5000");
      }
      if (o.deadline.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("--deadline is at most 10 minutes");
      }
      return o;
    }
  }
}
