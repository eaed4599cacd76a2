package dev.room.bench;

import java.util.Arrays;
import java.util.List;

/**
 * A measured quantity as a median with its spread over repeated measurements.
 *
 * @param median the middle measurement
 * @param min the smallest
 * @param max the largest
 * @param n how many measurements
 */
record Figure(double median, double min, double max, int n) {

  static Figure of(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (v.length == 0) {
      return new Figure(Double.NaN, Double.NaN, Double.NaN, 0);
    }
    int m = v.length / 2;
    double median = v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    return new Figure(median, v[0], v[v.length - 1], v.length);
  }

  static Figure of(double... values) {
    return of(Arrays.stream(values).boxed().toList());
  }

  /** Formats a duration in nanoseconds with a readable unit. */
  static String time(double nanos) {
    if (Double.isNaN(nanos)) {
      return "n/a";
    }
    if (nanos < 10) {
      return "%.2f ns".formatted(nanos);
    }
    if (nanos < 1_000) {
      return "%.1f ns".formatted(nanos);
    }
    if (nanos < 1_000_000) {
      return "%.2f µs".formatted(nanos / 1e3);
    }
    return "%.2f ms".formatted(nanos / 1e6);
  }

  /** "median (min–max)" of durations in nanoseconds. */
  String timeWithSpread() {
    return n <= 1 ? time(median) : time(median) + " (" + time(min) + " – " + time(max) + ")";
  }

  /** "median (min–max)" with a plain number format. */
  String withSpread(String format) {
    String m = format.formatted(median);
    return n <= 1 ? m : m + " (" + format.formatted(min) + " – " + format.formatted(max) + ")";
  }
}
