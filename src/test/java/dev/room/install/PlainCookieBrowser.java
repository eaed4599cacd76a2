package dev.room.install;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One browser tab that keeps cookies the way browsers do (RFC 6265: {@code Cookie: a=1; b=2}).
 *
 * <p>{@code java.net.CookieManager} treats a {@code Set-Cookie} with {@code Max-Age} as an RFC 2965
 * cookie and sends it back quoted ({@code room_ticket="…";$Path="/"}). Jetty unquotes that;
 * Tomcat's RFC 6265 parser keeps the quotes as part of the value, so the room sees a token it does
 * not know. Browsers never send that form, so the Tomcat tests use this client.
 */
final class PlainCookieBrowser {
  private final HttpClient client =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .version(HttpClient.Version.HTTP_1_1)
          .build();
  private final Map<String, String> cookies = new LinkedHashMap<>();

  HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return get(url, "text/html");
  }

  HttpResponse<String> get(String url, String accept) throws IOException, InterruptedException {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .header("Accept", accept)
            .GET();
    synchronized (cookies) {
      if (!cookies.isEmpty()) {
        req.header(
            "Cookie",
            cookies.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("; ")));
      }
    }
    HttpResponse<String> res = client.send(req.build(), HttpResponse.BodyHandlers.ofString());
    for (String header : res.headers().allValues("Set-Cookie")) {
      String pair = header.split(";", 2)[0];
      int eq = pair.indexOf('=');
      if (eq > 0) {
        synchronized (cookies) {
          cookies.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
        }
      }
    }
    return res;
  }

  /** The value of cookie {@code name}, or null. */
  String cookie(String name) {
    synchronized (cookies) {
      return cookies.get(name);
    }
  }
}
