package dev.room.sample;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One simulated browser tab for {@link LoadTest}: keeps its cookies as browsers do and behaves like
 * the waiting page.
 *
 * <p>Fields written by the browser's thread are volatile: the dashboard reads them while it runs,
 * and the verdict after it has ended.
 */
final class SimBrowser implements Runnable {
  enum Kind {
    /** Waits its turn. */
    PATIENT,
    /** Closes the tab right after getting a ticket. */
    ABANDONS,
    /** Pays to skip the line, and later comes back with its VIP pass. */
    PAYS
  }

  enum State {
    NOT_STARTED,
    WAITING,
    ADMITTED,
    ABANDONED,
    TURNED_AWAY,
    LOST
  }

  private static final String TICKET = "room_ticket";

  final int id;
  final Kind kind;
  private final LoadTest test;
  private final long startAt;

  volatile long firstSent;
  volatile long ticketAt;
  volatile long admittedAt;
  volatile boolean paid;
  volatile int vipEntryPosition;
  volatile int turnedAway;
  private volatile State state = State.NOT_STARTED;
  private volatile String problem = "";
  private final List<long[]> waitingPolls = new ArrayList<>(); // {sent, position}; guarded by this
  private final Map<String, String> cookies = new LinkedHashMap<>(); // the browser thread's only

  SimBrowser(int id, Kind kind, LoadTest test, long startAt) {
    this.id = id;
    this.kind = kind;
    this.test = test;
    this.startAt = startAt;
  }

  State state() {
    return state;
  }

  String problem() {
    return problem.isEmpty() ? state.name().toLowerCase(java.util.Locale.ROOT) : problem;
  }

  /** The polls that found this browser waiting (position ≥ 1): {sent nanos, position}. */
  synchronized List<long[]> waitingPolls() {
    return new ArrayList<>(waitingPolls);
  }

  /** Records a poll, sent at {@code sent}, that found this browser waiting at {@code position}. */
  synchronized void waitingPoll(long sent, long position) {
    waitingPolls.add(new long[] {sent, position});
  }

  @Override
  public void run() {
    try {
      long delay = startAt - System.nanoTime();
      if (delay > 0) {
        TimeUnit.NANOSECONDS.sleep(delay);
      }
      firstVisit();
      if (kind == Kind.PAYS && state == State.ADMITTED) {
        TimeUnit.MILLISECONDS.sleep(1500);
        comeBackWithPass();
      }
    } catch (InterruptedException e) {
      lose("interrupted");
    } catch (RuntimeException e) {
      lose("crashed: " + e);
    }
  }

  private void firstVisit() throws InterruptedException {
    firstSent = System.nanoTime();
    HttpResponse<String> res = getOrNull("/", "text/html");
    // Server restarting (connection refused, or 503 while it drains), or the line is full: try
    // again later, as a person would. Only the deadline turns a browser away for good.
    for (int tries = 1; (res == null || res.statusCode() >= 500); tries++) {
      if (res != null) {
        turnedAway++;
      }
      if (System.nanoTime() > test.deadline()) {
        state = res == null ? State.LOST : State.TURNED_AWAY;
        problem = res == null ? "could not load the page" : "the shop kept answering 503";
        return;
      }
      TimeUnit.MILLISECONDS.sleep(Math.min(4_000, 500L << Math.min(tries, 3)));
      res = getOrNull("/", "text/html");
    }
    if (isShop(res)) {
      admitted();
      return;
    }
    if (!isWaitingPage(res)) {
      lose("unexpected first response " + res.statusCode());
      return;
    }
    ticketAt = System.nanoTime();
    state = State.WAITING;
    if (kind == Kind.ABANDONS) {
      state = State.ABANDONED; // closes the tab: never polls, never comes back
      return;
    }
    waitInLine(true);
  }

  /** A paying client comes back while the shop is still busy: its pass puts it at the front. */
  private void comeBackWithPass() throws InterruptedException {
    HttpResponse<String> res = getOrNull("/", "text/html");
    for (int i = 0; res == null && i < 20 && System.nanoTime() < test.deadline(); i++) {
      TimeUnit.MILLISECONDS.sleep(500); // the server is restarting: reload, as a person would
      res = getOrNull("/", "text/html");
    }
    if (res == null || isShop(res)) {
      return; // the shop had room (or the server is gone): nothing to check
    }
    if (isWaitingPage(res)) {
      vipEntryPosition = Math.max(1, LoadTest.position(res.body()));
      waitInLine(false);
    }
  }

  /** Polls like the waiting page until admitted, lost or out of time. */
  private void waitInLine(boolean record) throws InterruptedException {
    String token = cookies.get(TICKET);
    int failures = 0;
    long pause = jittered(test.pollInterval());
    while (System.nanoTime() < test.deadline()) {
      TimeUnit.MILLISECONDS.sleep(pause);
      pause = jittered(test.pollInterval());
      long sent = System.nanoTime();
      HttpResponse<String> res = getOrNull("/queue/status", "application/json");
      JsonNode s = res == null ? null : LoadTest.json(res.body());
      if (s == null || (res.statusCode() != 200 && res.statusCode() != 429)) {
        failures++;
        if (failures > 20) {
          lose("status endpoint kept failing");
          return;
        }
        pause = Math.min(4_000, 500L << Math.min(failures, 3)); // the page's back-off, shortened
        continue;
      }
      failures = 0;
      if (s.path("cookies_required").asBoolean()) {
        lose("the room said cookies were missing");
        return;
      }
      if (!s.path("ready").asBoolean()) {
        long position = s.path("position").asLong(-1);
        if (record && position >= 1) {
          waitingPoll(sent, position);
        }
        if (res.statusCode() == 429) {
          pause =
              Math.max(
                  pause,
                  1000L * Math.max(1, res.headers().firstValueAsLong("Retry-After").orElse(1)));
        }
        if (kind == Kind.PAYS && record && !paid && position >= 3) {
          pay();
        }
        continue;
      }
      HttpResponse<String> page = getOrNull("/", "text/html");
      if (page == null || page.statusCode() >= 500) {
        continue; // server restarting: polled and reloaded again on the next round
      }
      if (isShop(page)) {
        if (record) {
          admitted();
        }
        return;
      }
      if (isWaitingPage(page)) {
        if (!cookies.getOrDefault(TICKET, "").equals(token)) {
          lose("told it was ready, then sent to the back of the line with a new ticket");
          return;
        }
        continue; // same ticket, still waiting: keep polling
      }
      lose("unexpected response " + page.statusCode() + " on reload");
      return;
    }
    lose("not admitted before the deadline");
  }

  /** The fake payment: quote, then confirm; the pass cookie lands in this browser's jar. */
  private void pay() throws InterruptedException {
    HttpResponse<String> quote = getOrNull(PaymentServlet.PATH, "text/html");
    if (quote == null || quote.statusCode() != 200 || !quote.body().contains("Skip the line")) {
      return; // e.g. already near the front: keep waiting normally
    }
    HttpRequest.Builder req =
        request(PaymentServlet.PATH + "/confirm", "text/html")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString("card=4242+4242+4242+4242"));
    HttpResponse<String> res = sendOrNull(req);
    if (res != null && res.statusCode() == 200 && res.body().contains("Paid")) {
      paid = true;
    }
  }

  private void admitted() {
    admittedAt = System.nanoTime();
    state = State.ADMITTED;
  }

  private void lose(String why) {
    problem = why;
    state = State.LOST;
  }

  private static boolean isShop(HttpResponse<String> res) {
    return res.statusCode() == 200 && res.body().contains(ShopServlet.MARKER);
  }

  private boolean isWaitingPage(HttpResponse<String> res) {
    return res.statusCode() == 200
        && cookies.containsKey(TICKET)
        && LoadTest.position(res.body()) >= 0;
  }

  private static long jittered(Duration d) {
    return d.toMillis() + ThreadLocalRandom.current().nextLong(d.toMillis() / 2 + 1);
  }

  // ── HTTP with a cookie jar ─────────────────────────────────────────────

  private HttpResponse<String> getOrNull(String path, String accept) throws InterruptedException {
    return sendOrNull(request(path, accept).GET());
  }

  private HttpRequest.Builder request(String path, String accept) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(test.uri(path))
            .timeout(Duration.ofSeconds(20))
            .header("Accept", accept);
    if (!cookies.isEmpty()) {
      b.header(
          "Cookie",
          cookies.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining("; ")));
    }
    return b;
  }

  private HttpResponse<String> sendOrNull(HttpRequest.Builder req) throws InterruptedException {
    try {
      HttpResponse<String> res = test.send(req.build());
      for (String header : res.headers().allValues("Set-Cookie")) {
        keep(header);
      }
      return res;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Stores or deletes one cookie, as RFC 6265 browsers do (attributes other than Max-Age aside).
   */
  private void keep(String setCookie) {
    String[] parts = setCookie.split(";");
    int eq = parts[0].indexOf('=');
    if (eq <= 0) {
      return;
    }
    String name = parts[0].substring(0, eq).strip();
    String value = parts[0].substring(eq + 1).strip();
    boolean expired = false;
    for (int i = 1; i < parts.length; i++) {
      String attr = parts[i].strip().toLowerCase(java.util.Locale.ROOT);
      if (attr.startsWith("max-age=")) {
        expired =
            attr.substring(8).strip().startsWith("-") || attr.substring(8).strip().equals("0");
      }
    }
    if (expired || value.isEmpty()) {
      cookies.remove(name);
    } else {
      cookies.put(name, value);
    }
  }
}
