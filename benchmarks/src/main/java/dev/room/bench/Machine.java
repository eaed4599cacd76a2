package dev.room.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the benchmarks ran on: read from /proc and the running JVM, for the report. */
record Machine(
    int cpus, String cpuModel, String memory, String jdk, String os, String commit, String load) {

  static Machine describe() {
    return new Machine(
        Runtime.getRuntime().availableProcessors(),
        procField("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch")),
        procField("/proc/meminfo", "MemTotal").map(Machine::kibToGib).orElse("unknown"),
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vendor")
            + ")",
        System.getProperty("os.name") + " " + System.getProperty("os.version"),
        libraryCommit(),
        loadAverage());
  }

  /** HEAD, marked when the library's sources had uncommitted changes when it was built. */
  private static String libraryCommit() {
    String head = command("git", "rev-parse", "--short", "HEAD");
    String dirty = command("git", "status", "--porcelain", "--", "src", "pom.xml");
    return dirty.equals("unknown") ? head : head + " + uncommitted changes in src/";
  }

  /** The 1, 5 and 15 minute load averages, a measure of how busy the machine was. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split("\\s+");
      return f[0] + " / " + f[1] + " / " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static java.util.Optional<String> procField(String file, String key) {
    try {
      List<String> lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
      for (String line : lines) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).strip().equals(key)) {
          return java.util.Optional.of(line.substring(colon + 1).strip());
        }
      }
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.empty();
  }

  private static String kibToGib(String memTotal) {
    String digits = memTotal.replaceAll("[^0-9]", "");
    return digits.isEmpty()
        ? memTotal
        : "%.1f GiB".formatted(Long.parseLong(digits) / (1024.0 * 1024.0));
  }

  /** The first line a command prints, or "unknown". */
  static String command(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) {
        return "unknown";
      }
      return out.lines().findFirst().orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
