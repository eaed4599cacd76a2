package dev.room.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.engine.Challenges;
import dev.room.spi.JoinLedger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the proof-of-work gate costs the server per join, and what one try costs a client.
 *
 * <ul>
 *   <li>{@code verify}: {@code Challenges.verify} of a solved ALTCHA payload: base64 and JSON
 *       decoding, the expiry, the HMAC-SHA256 signature, the SHA-256 of the solution, and spending
 *       it in an in-memory ledger. The payloads (a pool of 2^16, solved at setup) are spent anew
 *       each iteration; past the pool's end a payload is a replay, refused after the same crypto.
 *   <li>{@code issue}: one challenge: random salt and number, a SHA-256 and an HMAC.
 *   <li>{@code oneTry}: one SHA-256 of {@code salt + number}, which is what a solver pays per
 *       number it tries: the JDK's (SHA-NI intrinsics where the CPU has them) stands in for a
 *       scripted flood's native solver. A difficulty of {@code b} bits costs a solver about {@code
 *       2^(b-1)} tries.
 * </ul>
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar ChallengeBenchmark -t 1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ChallengeBenchmark {
  private static final int POOL = 1 << 16;
  private static final String ROOM = "bench";

  /** A ledger with a fixed secret whose spent set the benchmark empties each iteration. */
  private static final class BenchLedger implements JoinLedger {
    final ConcurrentHashMap<String, Long> spent = new ConcurrentHashMap<>();

    @Override
    public long countJoin(String key, long window, long forgetAfter, long now) {
      return 1;
    }

    @Override
    public boolean spend(String id, long expiresAt, long now) {
      return spent.putIfAbsent(id, expiresAt) == null;
    }

    @Override
    public byte[] secret() {
      return "a fixed benchmark secret, 32 b!!".getBytes(StandardCharsets.US_ASCII);
    }
  }

  private final BenchLedger ledger = new BenchLedger();
  private final Challenges challenges = new Challenges(ledger);
  private final long now = 1_767_225_600_000L;
  private String[] payloads;
  private int next;
  private String salt;
  private long number;

  @Setup(Level.Trial)
  public void solvePool() throws Exception {
    ObjectMapper json = new ObjectMapper();
    payloads = new String[POOL];
    for (int i = 0; i < POOL; i++) {
      JsonNode c = json.readTree(challenges.issue(ROOM, 2, now));
      String s = c.get("salt").asText();
      long n = 0;
      while (!Challenges.sha256(s + n).equals(c.get("challenge").asText())) {
        n++;
      }
      String p =
          "{\"algorithm\":\"SHA-256\",\"challenge\":\""
              + c.get("challenge").asText()
              + "\",\"number\":"
              + n
              + ",\"salt\":\""
              + s
              + "\",\"signature\":\""
              + c.get("signature").asText()
              + "\",\"took\":40}";
      payloads[i] = Base64.getUrlEncoder().withoutPadding().encodeToString(p.getBytes());
    }
    salt = json.readTree(challenges.issue(ROOM, 20, now)).get("salt").asText();
  }

  @Setup(Level.Iteration)
  public void unspend() {
    ledger.spent.clear();
    next = 0;
  }

  @Benchmark
  public Challenges.Verdict verify() {
    String p = payloads[next];
    next = (next + 1) & (POOL - 1);
    return challenges.verify(p, ROOM, now);
  }

  @Benchmark
  public String issue() {
    return challenges.issue(ROOM, 20, now);
  }

  @Benchmark
  public String oneTry() {
    return Challenges.sha256(salt + number++);
  }
}
