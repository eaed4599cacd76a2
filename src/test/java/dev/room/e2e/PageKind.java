package dev.room.e2e;

/**
 * The waiting pages a browser test runs against: the built-in one, and a page a user wrote and set
 * with {@code setHtml}, with its own markup but the contract of the seed README's "Custom pages"
 * (poll {@code /queue/status} same-origin, check {@code room_probe} first, obey {@code
 * cookies_required}, {@code ready} and {@code Retry-After}).
 */
enum PageKind {
  BUILT_IN(null, "#position", "#cookies"),
  CUSTOM(PageKind.CUSTOM_HTML, "#place", "#problem");

  /** The CSS selector of the element showing the position. */
  final String position;

  /** The CSS selector of the cookies-required explanation. */
  final String cookiesRequired;

  /** The page source for {@code setHtml}; null for the built-in page. */
  final String html;

  PageKind(String html, String position, String cookiesRequired) {
    this.html = html;
    this.position = position;
    this.cookiesRequired = cookiesRequired;
  }

  /**
   * Written the way a user following the Go README would: hard-coded paths, {@code fetch}, and only
   * the {@code {{.Position}}} and {@code {{.SkipURL}}} placeholders.
   */
  private static final String CUSTOM_HTML =
      """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>Queue - Acme Tickets</title>
      <link rel="icon" href="data:,">
      <style>
        body { font-family: Georgia, serif; background: #fffbea; color: #222; margin: 0; }
        main { padding: 1.5rem; }
        output { font-size: 2.5rem; font-weight: bold; }
      </style>
      </head>
      <body>
      <main>
        <h1>Acme Tickets: hold tight</h1>
        <p aria-live="polite" aria-atomic="true">You are number <output id="place">{{.Position}}</output> in the queue.</p>
        <p id="problem" role="alert" hidden>Please allow cookies for this site, or you cannot keep your place.</p>
        <p id="skip"><a href="{{.SkipURL}}">Skip the queue</a></p>
      </main>
      <script>
      (function () {
        var place = document.getElementById("place");
        if (!document.querySelector("#skip a").getAttribute("href")) { document.getElementById("skip").hidden = true; }
        function problem() { document.getElementById("problem").hidden = false; }
        if (!/(?:^|;\\s*)room_probe=/.test(document.cookie)) { problem(); return; }
        function poll() {
          fetch("/queue/status", { credentials: "same-origin", headers: { Accept: "application/json" } })
            .then(function (r) {
              return r.json().then(function (s) {
                if (s.cookies_required) { problem(); return; }
                if (s.ready) { location.reload(); return; }
                if (s.position > 0) { place.textContent = s.position; }
                var retry = parseInt(r.headers.get("Retry-After"), 10);
                setTimeout(poll, r.status === 429 && retry > 0 ? retry * 1000 : 2000);
              });
            })
            .catch(function () { setTimeout(poll, 5000); });
        }
        setTimeout(poll, 2000);
      })();
      </script>
      </body>
      </html>
      """;
}
