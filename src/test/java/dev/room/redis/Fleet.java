package dev.room.redis;

import dev.room.Browser;
import dev.room.FakeClock;
import dev.room.JettyHarness;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several app instances, each an embedded Jetty with its own {@link WaitingRoom} on its own {@link
 * RedisLine}, all on one Redis room and one shared application. Heartbeats are driven by hand with
 * the fake clock, so lease expiry is decided by the test.
 */
final class Fleet implements AutoCloseable {
  static final Duration LEASE = Duration.ofSeconds(15);
  private static final Pattern POSITION = Pattern.compile("\"position\":(\\d+)");

  final FakeClock clock = new FakeClock();
  final SharedApp app = new SharedApp();
  final List<Instance> instances = new ArrayList<>();
  private final Random random;

  /** One app instance. */
  static final class Instance {
    final int n;
    final RedisLine line;
    final WaitingRoom room;
    final JettyHarness jetty;
    boolean alive = true;

    Instance(int n, RedisLine line, WaitingRoom room, JettyHarness jetty) {
      this.n = n;
      this.line = line;
      this.room = room;
      this.jetty = jetty;
    }

    String url(String path) {
      return jetty.url(path);
    }
  }

  Fleet(String redisUri, String roomId, int instances, int capacity, long seed) throws Exception {
    random = new Random(seed);
    for (int n = 0; n < instances; n++) {
      RedisLine line =
          RedisLine.builder(redisUri, roomId)
              .clock(clock)
              .leaseTtl(LEASE)
              .instanceName("instance-" + n)
              .manualHeartbeat()
              .build();
      WaitingRoom room = WaitingRoom.builder().capacity(capacity).clock(clock).line(line).build();
      JettyHarness jetty = new JettyHarness();
      jetty.filter(new WaitingRoomFilter(room));
      jetty.servlet(app.servlet(n), "/*");
      jetty.start();
      this.instances.add(new Instance(n, line, room, jetty));
    }
  }

  /** A live instance chosen at random. */
  Instance any() {
    List<Instance> live = live();
    return live.get(random.nextInt(live.size()));
  }

  List<Instance> live() {
    return instances.stream().filter(i -> i.alive).toList();
  }

  /** Moves the clock and has every live instance heartbeat, as their threads would. */
  void advance(Duration d) {
    clock.advance(d);
    for (Instance i : live()) {
      i.line.beat();
    }
  }

  /** Kills instance {@code n}: its Redis link drops without releasing anything, then its server. */
  void kill(int n) throws Exception {
    Instance i = instances.get(n);
    i.alive = false;
    i.line.crash();
    app.releaseAllOn(n); // its requests die with it; their releases never reach Redis
    i.jetty.stop();
  }

  /** The status JSON {@code browser} gets from instance {@code i}. */
  static HttpResponse<String> status(Browser browser, Instance i)
      throws IOException, InterruptedException {
    return browser.get(i.url("/queue/status"), "application/json");
  }

  /** The position in a status body; 0 when ready. */
  static long position(HttpResponse<String> status) {
    String body = status.body();
    if (body.startsWith("{\"ready\":true")) {
      return 0;
    }
    Matcher m = POSITION.matcher(body);
    if (!m.find()) {
      throw new AssertionError("no position in " + status.statusCode() + " " + body);
    }
    return Long.parseLong(m.group(1));
  }

  @Override
  public void close() {
    for (Instance i : instances) {
      if (i.alive) {
        i.jetty.close();
        i.room.close();
      }
    }
  }
}
