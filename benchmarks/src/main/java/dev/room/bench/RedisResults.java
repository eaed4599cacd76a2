package dev.room.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code RedisPollBench}'s {@code @@redis} lines: per line ("memory" or a Redis poll variant),
 * waiting size, thread count and metric, a median with its spread over rounds.
 */
final class RedisResults {
  private final Map<String, Figure> figures = new LinkedHashMap<>();
  private final List<String> variants = new ArrayList<>();
  private final TreeSet<Integer> sizes = new TreeSet<>();
  private final TreeSet<Integer> threads = new TreeSet<>();

  /** Why the Redis run did not happen or failed, or null. */
  final String failure;

  /** What the "before" line ran (RedisPollBench's before_path), or null. */
  private String beforePath;

  RedisResults(List<String[]> lines, String failure) {
    this.failure = failure;
    for (String[] l : lines) {
      if (!l[0].equals("redis")) {
        continue;
      }
      if (l[1].equals("variants")) {
        variants.addAll(List.of(l[2].split(",")));
        continue;
      }
      if (l[1].equals("before_path")) {
        beforePath = l[2];
        continue;
      }
      String[] key = l[1].split(":"); // line:size:threads:metric
      String[] v = l[2].split(" ");
      if (key.length != 4 || v.length != 4) {
        continue;
      }
      figures.put(
          l[1],
          new Figure(
              Double.parseDouble(v[0]),
              Double.parseDouble(v[1]),
              Double.parseDouble(v[2]),
              Integer.parseInt(v[3])));
      sizes.add(Integer.parseInt(key[1]));
      threads.add(Integer.parseInt(key[2]));
    }
  }

  boolean ran() {
    return !figures.isEmpty();
  }

  /** What the "before" line ran, or null when the run did not say. */
  String beforePath() {
    return beforePath;
  }

  /** Whether "before" ran an earlier build's whole line, not this build's older script. */
  boolean beforeIsEarlierBuild() {
    return beforePath != null && beforePath.startsWith("the library at ");
  }

  List<String> variants() {
    return variants;
  }

  List<Integer> sizes() {
    return List.copyOf(sizes);
  }

  int minThreads() {
    return threads.isEmpty() ? 1 : threads.first();
  }

  int maxThreads() {
    return threads.isEmpty() ? 1 : threads.last();
  }

  /** Every thread count measured, fewest first. */
  List<Integer> threadCounts() {
    return List.copyOf(threads);
  }

  int largest() {
    return sizes.isEmpty() ? 0 : sizes.last();
  }

  /** The figure, or null when it was not measured. */
  Figure get(String line, int size, int threads, String metric) {
    Figure f = figures.get(line + ":" + size + ":" + threads + ":" + metric);
    return f == null || Double.isNaN(f.median()) ? null : f;
  }

  double median(String line, int size, int threads, String metric) {
    Figure f = get(line, size, threads, metric);
    return f == null ? Double.NaN : f.median();
  }
}
