package dev.room.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * What the browser tests need from outside Maven: Debian's Chromium and ChromeDriver, and axe-core
 * from npm. Missing pieces skip the tests on a developer's machine and fail them under {@code
 * CI=true}, so a green CI run always means the page was really tested.
 */
final class Prerequisites {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  /** Where {@code make axe} ({@code npm install --prefix target/axe axe-core@4}) puts axe. */
  static final Path AXE = Path.of("target", "axe", "node_modules", "axe-core", "axe.min.js");

  private Prerequisites() {}

  static void requireChromium() {
    require(
        Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "browser tests need "
            + CHROMIUM
            + " and "
            + CHROMEDRIVER
            + ": apt-get install chromium chromium-driver");
  }

  static Path requireAxe() {
    require(
        Files.isReadable(AXE),
        "the accessibility audit needs "
            + AXE
            + ": run `make axe` (npm install --prefix target/axe axe-core@4)");
    return AXE;
  }

  private static void require(boolean present, String message) {
    if (present) {
      return;
    }
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(message + " (CI=true: a missing prerequisite is a failure, not a skip)");
    }
    Assumptions.abort(message);
  }
}
