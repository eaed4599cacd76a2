package dev.room.bench;

import dev.room.audit.AdmissionLog;
import dev.room.engine.InMemoryLine;
import dev.room.spi.LineJournal;
import dev.room.spi.Outcome;
import dev.room.spi.Policy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the admission log costs an admission on the in-memory line.
 *
 * <p>One operation is one ticketed admission, the way the line makes it: a client arrives and
 * queues behind the one slot (held), the slot is given back and handed to it (an offer), and it
 * comes in (a claim), then gives the slot back for the next. That is three journal entries ({@code
 * arrive}, {@code offer}, {@code admit}). {@code log=false} runs the same cycle with no log
 * attached, the baseline measured in the same run; the difference is the log's cost per admission
 * on the request path. Goal: at most 1 µs.
 *
 * <ul>
 *   <li>{@code admit}: average time per admission cycle. With the log, the request path only copies
 *       each entry into the log's ring; formatting, hashing and writing happen on its writer
 *       thread, which on a 2-core machine shares the CPU with the benchmark thread.
 *   <li>{@code admitAndWrite}: 10,000 admission cycles and then {@link AdmissionLog#flush()} (every
 *       entry formatted, SHA-256 chained and written to a file in the temp directory), divided by
 *       10,000: the whole cost per admission, writer included, so it says whether the writer keeps
 *       up. If the ring ever fills, the teardown says how many entries were lost.
 * </ul>
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar AdmissionLogBenchmark -prof gc
 * </pre>
 */
@Fork(value = 1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AdmissionLogBenchmark {
  static final int BATCH = 10_000;
  private static final Policy POLICY = new Policy(300_000, 0, 0, 100_000, 60_000, 0);

  /** A one-slot line, its slot held, and (with {@code log}) an admission log in a temp file. */
  @State(Scope.Thread)
  public static class Room {
    @Param({"false", "true"})
    boolean log;

    InMemoryLine line;
    AdmissionLog admissions;
    Path file;
    long next = 1;

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
      line = new InMemoryLine(1);
      if (log) {
        file = Files.createTempFile("admissions", ".jsonl");
        admissions = AdmissionLog.toFile(file);
        InstantSource clock = InstantSource.fixed(java.time.Instant.ofEpochMilli(Lines.NOW));
        line.journal(admissions.open("bench", clock, true));
      } else {
        line.journal(LineJournal.NONE);
      }
      if (!line.tryEnter()) {
        throw new IllegalStateException("the slot should be free");
      }
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
      if (admissions != null) {
        long lost = admissions.lost();
        admissions.close();
        Files.deleteIfExists(file);
        if (lost > 0) {
          System.out.println("admission log: " + lost + " entries lost (the writer fell behind)");
        }
      }
    }

    /** One admission: arrive behind the held slot, the slot frees and is handed over, claimed. */
    void admitOne() {
      long hi = 0x5EED_0000_0000_0000L | next;
      long[] t = {hi, next++ * 0x9E37_79B9_7F4A_7C15L};
      long o = line.arrive(t, null, "", false, Lines.NOW, POLICY); // the line finishes the token
      long lo = t[1];
      if (Outcome.kind(o) != Outcome.WAITING) {
        throw new IllegalStateException("expected to wait, got kind " + Outcome.kind(o));
      }
      line.exit(Lines.NOW);
      if (Outcome.kind(line.claim(hi, lo, Lines.NOW, POLICY)) != Outcome.ADMITTED) {
        throw new IllegalStateException("expected to be admitted");
      }
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  public void admit(Room r) {
    r.admitOne();
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 10)
  @Measurement(iterations = 20)
  @OperationsPerInvocation(BATCH)
  public void admitAndWrite(Room r) throws IOException {
    for (int i = 0; i < BATCH; i++) {
      r.admitOne();
    }
    if (r.admissions != null) {
      r.admissions.flush();
    }
  }
}
