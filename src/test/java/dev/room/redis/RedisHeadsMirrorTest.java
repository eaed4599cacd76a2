package dev.room.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.FakeClock;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import dev.room.spi.Tokens;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The copy of heads each instance ranks band 0 with ({@link HeadsMirror}, fed by the heads log):
 * polls through the line rank by it, the one-poll script by ZRANK, and both give every ticket the
 * same position, at the copy's word boundaries, beside higher bands, ties and places it does not
 * keep, with another instance changing the line, and after the copy is found stale.
 */
class RedisHeadsMirrorTest {
  private static final Policy POLICY = new Policy(300_000, 0, 1_000, 100_000, 60_000, 0);
  private static final long SPAN = HeadsMirror.SPAN;
  @RegisterExtension static final RedisPerClass redis = new RedisPerClass();

  private final FakeClock clock = new FakeClock();
  private final String room = "rank-" + UUID.randomUUID();
  private final List<Long> tickets = new ArrayList<>();
  private RedisClient client;
  private StatefulRedisConnection<String, String> raw;
  private RedisLine line;

  @BeforeEach
  void open() {
    client = RedisClient.create(redis.uri());
    raw = client.connect();
    line = line();
  }

  @AfterEach
  void close() {
    line.close();
    raw.close();
    client.shutdown();
  }

  private RedisLine line() {
    // capacity 0: nobody is offered a slot, every ticket waits
    return RedisPollBatchTest.line(redis.uri(), clock, true, room, 0);
  }

  /** A ticket arriving at place {@code place} (the room's counter set just below it). */
  private void arriveAt(long place) {
    raw.sync().hset(new RoomKeys(room).all()[0], "counter", Long.toString(place - 1));
    long id = tickets.size() + 1;
    line.arrive(id, id, "", false, clock.millis(), POLICY);
    tickets.add(id);
  }

  /**
   * Every ticket polled through the line (batched, ranked by the copy once it is read) and by the
   * one-poll script (ZRANK): the same kind and position. Returns the positions the copy gave.
   */
  private long assertCopyRanksAsZrank(RedisLine polled, String when) throws Exception {
    assertTrue(polled.heads().awaitCopy(10_000), "a copy of heads is read");
    long before = polled.heads().counts()[1];
    clock.advance(Duration.ofSeconds(2)); // past the poll interval: no answer is rate-limited
    for (long id : tickets) {
      long many = polled.poll(id, id, clock.millis(), POLICY);
      long one = Replies.outcome(eval(Op.POLL, pollArgs(Tokens.format(id, id), clock.millis())), 0);
      assertEquals(Outcome.kind(one), Outcome.kind(many), when + ": ticket " + id);
      assertEquals(Outcome.position(one), Outcome.position(many), when + ": ticket " + id);
    }
    line.checkInvariants();
    return polled.heads().counts()[1] - before;
  }

  private long assertCopyRanksAsZrank(String when) throws Exception {
    return assertCopyRanksAsZrank(line, when);
  }

  @Test
  void positionsAreExactAtTheCopysWordBoundaries() throws Exception {
    long[] places = {
      1,
      2,
      7,
      8,
      9,
      15,
      16,
      4095,
      4096,
      4097,
      4103,
      4104,
      65535,
      65536,
      65537,
      69631,
      69632,
      1_000_000,
      SPAN - 9,
      SPAN - 1,
      SPAN,
      SPAN + 1,
      5_000_000_000L
    };
    for (long p : places) {
      arriveAt(p);
    }
    assertTrue(assertCopyRanksAsZrank("all waiting") >= places.length - 3, "the copy ranked");
    long now = clock.millis();
    for (int i = 0; i < tickets.size(); i += 3) {
      assertTrue(line.remove(tickets.get(i), tickets.get(i), now));
    }
    tickets.removeIf(id -> (id - 1) % 3 == 0);
    assertCopyRanksAsZrank("every third removed");
  }

  @Test
  void positionsAreExactBesideHigherBandsTiesAndRandomLeaves() throws Exception {
    Random random = new Random(16);
    long place = 1;
    for (int i = 0; i < 300; i++) {
      place += 1 + random.nextInt(i % 50 == 0 ? 9000 : 40);
      arriveAt(place);
    }
    for (int i = 0; i < 20; i++) {
      long id = tickets.get(random.nextInt(tickets.size()));
      line.rank(id, id, 1 + random.nextInt(3)); // ahead of band 0: the copy counts them
    }
    long now = clock.millis();
    for (int i = 0; i < 5; i++) {
      long id = tickets.get(random.nextInt(tickets.size()));
      line.promote(id, id, 1 + random.nextInt(50)); // a tie with the group at that position
    }
    assertTrue(assertCopyRanksAsZrank("ranked and tied") > 0, "the copy ranked");
    for (int i = 0; i < 120; i++) {
      long id = tickets.remove(random.nextInt(tickets.size()));
      line.remove(id, id, now);
    }
    assertCopyRanksAsZrank("after leaves");
  }

  /** Another instance's arrivals, ranks and leaves reach this one's copy through the log. */
  @Test
  void anotherInstancesChangesReachTheCopy() throws Exception {
    for (long p = 10; p < 3000; p += 19) {
      arriveAt(p);
    }
    assertCopyRanksAsZrank("before");
    try (RedisLine other = line()) {
      long now = clock.millis();
      for (int i = 0; i < 40; i++) {
        long id = tickets.remove(3 * i);
        assertTrue(other.remove(id, id, now));
      }
      other.rank(tickets.get(100), tickets.get(100), 2);
      long id = tickets.size() + 1000;
      other.arrive(id, id, "", true, now, POLICY); // to the front: a tie with the first group
      tickets.add(id);
      assertTrue(assertCopyRanksAsZrank("after the other's changes") > 0, "the copy ranked");
      assertCopyRanksAsZrank(other, "through the other");
    }
  }

  /**
   * A copy of a log begun anew (a restore's commit), of one trimmed past it, or of one replaced
   * behind it (a failover to a replica that lagged) is dropped and read again; the polls of the
   * batch that finds it are still exact.
   */
  @Test
  void aStaleCopyIsReadAgainAndItsPollsStayExact() throws Exception {
    for (long p = 5; p < 2000; p += 11) {
      arriveAt(p);
    }
    assertCopyRanksAsZrank("first copy");
    RoomKeys keys = new RoomKeys(room);
    RedisCommands<String, String> r = raw.sync();
    long copies = line.heads().counts()[0];
    r.hincrby(keys.all()[0], "hlgen", 1);
    assertCopyRanksAsZrank("a new log");
    assertTrue(line.heads().counts()[0] > copies, "read again");

    copies = line.heads().counts()[0];
    arriveAt(5000);
    r.hincrby(keys.all()[0], "htrim", 100_000);
    assertCopyRanksAsZrank("a log trimmed past the copy");
    assertTrue(line.heads().counts()[0] > copies, "read again");

    copies = line.heads().counts()[0];
    long id = tickets.get(7);
    assertTrue(line.remove(id, id, clock.millis())); // the copy's last change, once polled
    tickets.remove(7);
    assertCopyRanksAsZrank("after the removal"); // the copy holds the removal as its last
    // the log as a replica that missed that removal and took another would have it
    r.eval(
        "return redis.call('LSET', KEYS[1], -1, struct.pack('>bi8i8i8', 1, 0, 999999, 1))",
        ScriptOutputType.STATUS,
        keys.all()[17]);
    assertCopyRanksAsZrank("a log replaced behind the copy");
    assertTrue(line.heads().counts()[0] > copies, "read again");
  }

  /**
   * A group that joined heads without a log entry (as an instance of an earlier version adds them)
   * is noticed by the count each reply carries: the copy is read again, every poll exact.
   */
  @Test
  void aChangeTheLogMissedIsNoticedByTheCount() throws Exception {
    for (long p = 100; p < 900; p += 4) {
      arriveAt(p);
    }
    assertCopyRanksAsZrank("first copy");
    long copies = line.heads().counts()[0];
    RoomKeys keys = new RoomKeys(room);
    String phantom = String.format("%08x%016x", Integer.MAX_VALUE, 50L);
    raw.sync().zadd(keys.all()[3], 4503595332403200.0 + 50 + 1, phantom);
    clock.advance(Duration.ofSeconds(2));
    for (long id : tickets) {
      long many = line.poll(id, id, clock.millis(), POLICY);
      long one = Replies.outcome(eval(Op.POLL, pollArgs(Tokens.format(id, id), clock.millis())), 0);
      assertEquals(Outcome.position(one), Outcome.position(many), "ticket " + id);
    }
    assertTrue(line.heads().counts()[0] > copies, "read again");
    raw.sync().zrem(keys.all()[3], phantom);
    assertCopyRanksAsZrank("the group gone again");
  }

  /**
   * Regression (review of the copy): a failover to a replica that missed the log's last two
   * changes, after which other changes ended the log in the same sign, band and place as the copy's
   * last (a different leave, then an arrival at the same place, the counter having lagged too),
   * went unnoticed: the copy answered fourteen tickets one place too far ahead. Each entry's stamp
   * (its script's time) tells the two apart.
   */
  @Test
  void aFailoverThatLostTheLogsEndIsNoticedWhenItsLastChangeRecurs() throws Exception {
    for (long p = 1; p <= 30; p++) {
      arriveAt(p);
    }
    assertCopyRanksAsZrank("first copy");
    RoomKeys keys = new RoomKeys(room);
    RedisClient bin = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> b = bin.connect(ByteArrayCodec.INSTANCE)) {
      Map<byte[], byte[]> replica = new HashMap<>(); // the replica's state, two changes behind
      for (String k : keys.all()) {
        byte[] key = k.getBytes(StandardCharsets.UTF_8);
        byte[] dump = b.sync().dump(key);
        if (dump != null) {
          replica.put(key, dump);
        }
      }
      long now = clock.millis();
      assertTrue(line.remove(5, 5, now));
      line.arrive(100, 100, "", false, now, POLICY); // place 31
      tickets.remove(Long.valueOf(5));
      tickets.add(100L);
      assertCopyRanksAsZrank("the copy holds both changes");
      long copies = line.heads().counts()[0];
      for (String k : keys.all()) {
        b.sync().del(k.getBytes(StandardCharsets.UTF_8));
      }
      replica.forEach((k, v) -> b.sync().restore(k, 0, v));
      tickets.remove(Long.valueOf(100));
      tickets.add(5L);
      assertTrue(line.remove(20, 20, clock.millis())); // another leave
      tickets.remove(Long.valueOf(20));
      line.arrive(100, 100, "", false, clock.millis(), POLICY); // place 31 again
      tickets.add(100L);
      assertCopyRanksAsZrank("after the failover");
      assertTrue(line.heads().counts()[0] > copies, "the copy was dropped");
    } finally {
      bin.shutdown();
    }
  }

  /** A copy read a few groups a page holds every group once, ties of one score included. */
  @Test
  void aCopyReadInSmallPagesHoldsEveryGroupOnce() throws Exception {
    line.heads().pageSize(5);
    Random random = new Random(7);
    long place = 1;
    for (int i = 0; i < 60; i++) {
      place += 1 + random.nextInt(100);
      arriveAt(place);
    }
    for (int i = 0; i < 12; i++) { // higher bands: some of them tie at one score
      long id = tickets.get(random.nextInt(tickets.size()));
      line.rank(id, id, i % 2 == 0 ? 1_048_575 + i : 1 + random.nextInt(3));
    }
    RedisCommands<String, String> r = raw.sync();
    r.hincrby(new RoomKeys(room).all()[0], "hlgen", 1); // the next batch drops the copy
    clock.advance(Duration.ofSeconds(2));
    line.poll(tickets.get(0), tickets.get(0), clock.millis(), POLICY);
    assertTrue(assertCopyRanksAsZrank("read five groups a page") > 0, "the copy ranked");
  }

  /**
   * Sixteen threads poll through one line while another instance removes tickets and adds new ones
   * at the back, with the log trimming as it grows: no position ever goes up, and at the end every
   * position is the one ZRANK gives.
   */
  @Test
  void positionsNeverGoUpUnderConcurrentLeavesAndTrims() throws Exception {
    int n = 1000;
    for (long p = 1; p <= n; p++) {
      arriveAt(p);
    }
    // pad the log with changes the copy ignores (beyond its places), so that it trims meanwhile
    raw.sync()
        .eval(
            "for i = 1, 99990 - redis.call('LLEN', KEYS[1]) do redis.call('RPUSH', KEYS[1],"
                + " struct.pack('>bi8i8i8', -1, 0, 200000000, 0)) end return 0",
            ScriptOutputType.INTEGER,
            new RoomKeys(room).all()[17]);
    assertTrue(line.heads().awaitCopy(10_000));
    long ranked = line.heads().counts()[1];
    Map<Long, Long> last = new ConcurrentHashMap<>();
    Set<Long> gone = ConcurrentHashMap.newKeySet();
    AtomicReference<String> bad = new AtomicReference<>();
    Object[] locks = new Object[n + 1];
    Arrays.setAll(locks, i -> new Object());
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try (RedisLine other = line()) {
      List<Future<?>> polls = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        polls.add(
            pool.submit(
                () -> {
                  Random random = new Random();
                  for (int i = 0; i < 400; i++) {
                    long id = 1 + random.nextInt(n);
                    synchronized (locks[(int) id]) { // a ticket's polls one at a time, in order
                      long o = line.poll(id, id, clock.millis(), POLICY);
                      if (Outcome.kind(o) == Outcome.WAITING) {
                        Long before = last.put(id, Outcome.position(o));
                        if (before != null && Outcome.position(o) > before) {
                          bad.compareAndSet(null, id + ": " + before + " -> " + last.get(id));
                        }
                      }
                    }
                  }
                  return null;
                }));
      }
      Random random = new Random(3);
      for (int i = 0; i < 300; i++) {
        long id = 1 + random.nextInt(n);
        if (gone.add(id)) {
          other.remove(id, id, clock.millis());
        }
        long back = n + 1 + i;
        other.arrive(back, back, "", false, clock.millis(), POLICY);
      }
      for (Future<?> f : polls) {
        f.get(60, TimeUnit.SECONDS);
      }
      for (long i = 0; i < 300; i++) {
        tickets.add(n + 1 + i);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(null, bad.get(), "a position went up");
    assertTrue(line.heads().counts()[1] > ranked, "the copy ranked polls of the run");
    assertTrue(
        Long.parseLong(raw.sync().hget(new RoomKeys(room).all()[0], "htrim")) > 0, "trimmed");
    tickets.removeAll(gone);
    assertCopyRanksAsZrank("after the run");
  }

  private List<Object> eval(Op op, String[] args) {
    return raw.sync()
        .eval(new LuaScripts().source(op), ScriptOutputType.MULTI, new RoomKeys(room).all(), args);
  }

  private static String[] pollArgs(String token, long now) {
    String[] args = new String[7];
    args[0] = token;
    args[1] = Long.toString(now);
    policyArgs(args, 2);
    return args;
  }

  private static void policyArgs(String[] args, int at) {
    args[at] = Long.toString(POLICY.ttl());
    args[at + 1] = Long.toString(POLICY.firstPollGrace());
    args[at + 2] = Long.toString(POLICY.pollInterval());
    args[at + 3] = Long.toString(POLICY.cookieRefresh());
    args[at + 4] = Long.toString(POLICY.readyTimeout());
  }
}
