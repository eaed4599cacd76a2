package dev.room.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * One headless Debian Chromium with a fresh profile, driven through {@code /usr/bin/chromedriver}
 * (named explicitly, so Selenium Manager never tries to download a driver).
 *
 * <p>The page's own timers run {@value #PAGE_SPEEDUP} times faster than real time: a script
 * installed before any page script scales every {@code setTimeout} delay, so the built-in page's
 * three-second poll takes about 300 ms and its reconnect backoff shrinks alike. Nothing in the page
 * changes; the room's decisions still run on the test's {@code FakeClock}. The same script counts
 * the page's pending timers, which is how a test proves that polling has stopped.
 */
final class Chrome implements AutoCloseable {
  static final int PAGE_SPEEDUP = 10;
  static final Path SCREENSHOTS = Path.of("target", "screenshots");
  static final Duration WAIT = Duration.ofSeconds(15);

  private static final String PAGE_CLOCK =
      """
      (() => {
        const speedup = %d;
        const realSet = window.setTimeout.bind(window);
        const realClear = window.clearTimeout.bind(window);
        const pending = new Set();
        let lastDelay = -1;
        window.setTimeout = function (fn, ms, ...args) {
          lastDelay = Number(ms) || 0;
          const id = realSet(() => {
            pending.delete(id);
            if (typeof fn === "function") fn(...args);
          }, Math.max(0, (Number(ms) || 0) / speedup));
          pending.add(id);
          return id;
        };
        window.clearTimeout = function (id) {
          pending.delete(id);
          realClear(id);
        };
        window.__pageClock = { pending: () => pending.size, lastDelay: () => lastDelay };
        // What the first frame shows: the page as parsed, its inline script run, before any poll.
        document.addEventListener("DOMContentLoaded", () => {
          const bar = document.getElementById("bar");
          window.__firstFrame = {
            title: document.title,
            text: document.body.innerText.replace(/\\s+/g, " ").trim(),
            bar: !!bar && bar.getClientRects().length > 0,
            fetches: performance.getEntriesByType("resource").length
          };
        });
      })();
      """
          .formatted(PAGE_SPEEDUP);

  private final Path profile;
  private final ChromeDriverService service;
  private final ChromeDriver driver;

  private Chrome(boolean blockCookies) throws IOException {
    Prerequisites.requireChromium();
    profile = Files.createTempDirectory("room-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(Prerequisites.CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--lang=en-US",
        "--hide-scrollbars",
        "--window-size=640,720",
        "--user-data-dir=" + profile.toAbsolutePath());
    if (blockCookies) {
      // The user's own setting: Settings › Privacy › "Don't allow sites to save data".
      options.setExperimentalOption(
          "prefs", Map.of("profile.default_content_setting_values.cookies", 2));
    }
    service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(Prerequisites.CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .withSilent(true)
            .build();
    ChromeDriver d;
    try {
      d = new ChromeDriver(service, options);
    } catch (RuntimeException e) {
      service.stop();
      deleteProfile();
      throw e;
    }
    driver = d;
    cdp("Page.addScriptToEvaluateOnNewDocument", Map.of("source", PAGE_CLOCK));
  }

  /** A browser that accepts cookies. */
  static Chrome start() throws IOException {
    return new Chrome(false);
  }

  /** A browser whose user has blocked cookies for every site. */
  static Chrome startBlockingCookies() throws IOException {
    return new Chrome(true);
  }

  WebDriver driver() {
    return driver;
  }

  void open(String url) {
    driver.get(url);
  }

  WebElement find(String css) {
    return driver.findElement(By.cssSelector(css));
  }

  boolean displayed(String css) {
    List<WebElement> found = driver.findElements(By.cssSelector(css));
    return !found.isEmpty() && found.get(0).isDisplayed();
  }

  String text(String css) {
    return find(css).getText().strip();
  }

  Object js(String script, Object... args) {
    return driver.executeScript(script, args);
  }

  Object jsAsync(String script, Object... args) {
    return driver.executeAsyncScript(script, args);
  }

  Map<String, Object> cdp(String command, Map<String, Object> params) {
    return driver.executeCdpCommand(command, params);
  }

  /**
   * Waits, at most {@link #WAIT}, until {@code condition} returns something other than null/false.
   */
  <T> T until(String what, Function<WebDriver, T> condition) {
    WebDriverWait wait = new WebDriverWait(driver, WAIT, Duration.ofMillis(25));
    wait.withMessage(what);
    return wait.until(condition);
  }

  void untilText(String css, String expected) {
    until(
        css + " reads " + expected,
        d -> expected.equals(d.findElement(By.cssSelector(css)).getText().strip()));
  }

  void untilDisplayed(String css) {
    until(css + " is displayed", d -> displayed(css));
  }

  void untilHidden(String css) {
    until(css + " is hidden", d -> !displayed(css));
  }

  /** Marks the current document; {@link #sameDocument()} is false once it reloads or navigates. */
  void markDocument() {
    js("window.__roomTestMark = true;");
  }

  boolean sameDocument() {
    return Boolean.TRUE.equals(js("return window.__roomTestMark === true;"));
  }

  /** Timers the page has scheduled and not yet run or cleared. */
  long pendingTimers() {
    return ((Number) js("return window.__pageClock.pending();")).longValue();
  }

  /** The delay, in page time, of the timer the page scheduled last (its next poll, say). */
  long lastTimerDelay() {
    return ((Number) js("return window.__pageClock.lastDelay();")).longValue();
  }

  /**
   * The current document's first frame: {@code title}, its visible {@code text}, whether the
   * progress {@code bar} showed, and how many {@code fetches} (polls) it had made by then.
   */
  @SuppressWarnings("unchecked")
  Map<String, Object> firstFrame() {
    return (Map<String, Object>) js("return window.__firstFrame;");
  }

  /** Whether the page scrolls sideways: wider content than the viewport. */
  boolean scrollsSideways() {
    return (Boolean)
        js(
            "return document.documentElement.scrollWidth > window.innerWidth"
                + " || document.body.scrollWidth > window.innerWidth;");
  }

  /** Records every text the element takes from now on, for {@link #seenTexts}. */
  void recordTexts(String css) {
    js(
        "const el = document.querySelector(arguments[0]);"
            + "const text = () => el.textContent.replace(/\\s+/g, \" \").trim();"
            + "window.__roomTexts = [text()];"
            + "new MutationObserver(() => window.__roomTexts.push(text()))"
            + ".observe(el, {childList: true, characterData: true, subtree: true});",
        css);
  }

  /** The texts seen since {@link #recordTexts}, the first included, repeats collapsed. */
  @SuppressWarnings("unchecked")
  List<String> seenTexts() {
    return (List<String>) js("return window.__roomTexts.filter((t, i, a) => t !== a[i - 1]);");
  }

  /** How many times the element's content was rewritten since {@link #recordTexts}. */
  long rewrites() {
    return ((Number) js("return window.__roomTexts.length - 1;")).longValue();
  }

  void emulate(String feature, String value) {
    cdp(
        "Emulation.setEmulatedMedia",
        Map.of("features", List.of(Map.of("name", feature, "value", value))));
  }

  void viewport(int width, int height) {
    cdp(
        "Emulation.setDeviceMetricsOverride",
        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", width < 600));
  }

  /** Writes a PNG of the viewport to {@code target/screenshots/<name>.png}. */
  Path screenshot(String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    Path file = SCREENSHOTS.resolve(name + ".png");
    Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    return file;
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      service.stop();
      deleteProfile();
    }
  }

  private void deleteProfile() {
    try (Stream<Path> files = Files.walk(profile)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // Chromium may still be flushing its profile as it exits; a leftover temp dir is harmless.
      System.err.println("note: could not delete the Chromium profile " + profile + ": " + e);
    }
  }
}
