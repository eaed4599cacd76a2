package dev.room.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/** One browser tab against a running sample: RFC 6265 cookies, no redirects followed. */
final class TestBrowser {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  private volatile String base;
  private final Map<String, String> cookies = new LinkedHashMap<>();

  TestBrowser(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** The same browser (same cookies) pointed at a server restarted on another port. */
  void moveTo(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(request(path).GET());
  }

  CompletableFuture<HttpResponse<String>> getAsync(String path) {
    return CLIENT.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path, String header, String value)
      throws IOException, InterruptedException {
    return send(request(path).header(header, value).GET());
  }

  HttpResponse<String> post(String path, String contentType, String body, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        request(path)
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b);
  }

  String cookie(String name) {
    synchronized (cookies) {
      return cookies.get(name);
    }
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
    synchronized (cookies) {
      if (!cookies.isEmpty()) {
        b.header(
            "Cookie",
            cookies.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("; ")));
      }
    }
    return b;
  }

  private HttpResponse<String> send(HttpRequest.Builder b)
      throws IOException, InterruptedException {
    HttpResponse<String> res = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    for (String h : res.headers().allValues("Set-Cookie")) {
      String pair = h.split(";", 2)[0];
      int eq = pair.indexOf('=');
      if (eq > 0) {
        synchronized (cookies) {
          String value = pair.substring(eq + 1).strip();
          if (value.isEmpty()) {
            cookies.remove(pair.substring(0, eq).strip());
          } else {
            cookies.put(pair.substring(0, eq).strip(), value);
          }
        }
      }
    }
    return res;
  }
}
