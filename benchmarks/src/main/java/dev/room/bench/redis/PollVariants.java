package dev.room.bench.redis;

import dev.room.redis.RedisLine;
import dev.room.spi.Line;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Redis status-poll paths {@link RedisPollBench} measures, by name: the seam through which a
 * build that keeps its previous poll path callable puts "before" beside "after" in one run, on one
 * {@code redis-server}, so issue 16's "polls/s ≥ 4× today in the same run" is a ratio of two things
 * measured together.
 *
 * <p>Each variant opens a whole {@link Line} for a room of its own (its own keys), so the two paths
 * never share data; the benchmark fills each with the same tokens and calls only {@link Line#poll}
 * in the timed windows, exactly what the status endpoint calls. A variant whose old path exists
 * only as a poll function over the new line's data can wrap a {@code RedisLine} in a {@code Line}
 * that forwards everything but {@code poll}.
 */
final class PollVariants {
  /** The poll path as it was before issue 16 (60–100 µs of Redis time per poll at 100,000). */
  static final String BEFORE = "before";

  /** What BEFORE runs while no earlier build is given: this build's own per-poll script. */
  static final String THIS_BUILD_UNBATCHED =
      "this build's one script a poll (RedisLine.Builder.batchPolls(false))";

  /** The poll path of this build: {@code RedisLine.poll}. */
  static final String AFTER = "after";

  /** Opens a line for {@code roomId} on the Redis at {@code redisUri}. */
  interface Opener {
    Line open(String redisUri, String roomId);
  }

  private static final Map<String, Opener> ALL = new LinkedHashMap<>();

  static {
    // The old path: one script per poll, the library set up for each (ops/poll.lua), kept
    // callable by the line for this comparison.
    ALL.put(BEFORE, (uri, room) -> RedisLine.builder(uri, room).batchPolls(false).build());
    ALL.put(AFTER, RedisLine::connect);
  }

  private static String before = THIS_BUILD_UNBATCHED;

  private PollVariants() {}

  /**
   * Makes BEFORE the whole Redis line of an earlier build (its jar, {@code make bench-before-jar}):
   * its client, scripts and rules, not only this build's older script.
   */
  static void useEarlierBuild(Path jar, String revision) {
    OldLibrary old = new OldLibrary(jar);
    ALL.put(BEFORE, old::open);
    before = "the library at " + revision + " (its RedisLine, client and scripts, same JVM)";
  }

  /** What BEFORE measures, for the report. */
  static String beforePath() {
    return before;
  }

  /** Every registered variant, BEFORE first when present. */
  static Map<String, Opener> all() {
    return Collections.unmodifiableMap(ALL);
  }
}
