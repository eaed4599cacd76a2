package dev.room.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/** The axe-core accessibility audit (npm {@code axe-core}), injected into the page under test. */
final class Axe {
  private static final String RUN =
      """
      const done = arguments[arguments.length - 1];
      axe.run(document, { resultTypes: ["violations"] })
        .then((r) => done(r.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => v.id + " (" + v.impact + "): " + v.help + " at "
            + v.nodes.map((n) => n.target.join(" ")).join(", "))))
        .catch((e) => done(["axe failed: " + e]));
      """;

  private Axe() {}

  /** Runs axe on the current page; one line per serious or critical violation. */
  @SuppressWarnings("unchecked")
  static List<String> seriousViolations(Chrome chrome) throws IOException {
    String source = Files.readString(Prerequisites.requireAxe());
    chrome.js(source);
    return (List<String>) chrome.jsAsync(RUN);
  }
}
