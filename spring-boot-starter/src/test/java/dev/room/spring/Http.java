package dev.room.spring;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A small HTTP client for the tests: no cookie jar, so each test says which cookies it sends. */
final class Http {
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  HttpResponse<String> get(String path, String... headers)
      throws IOException, InterruptedException {
    return client.send(request(path, headers).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  CompletableFuture<HttpResponse<String>> getAsync(String path, String... headers) {
    return client.sendAsync(
        request(path, headers).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> postJson(String path, String json) throws IOException, InterruptedException {
    return client.send(
        request(path, "Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String path, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return b;
  }

  /** The value of cookie {@code name} set by {@code response}, or null. */
  static String cookie(HttpResponse<?> response, String name) {
    for (String h : response.headers().allValues("set-cookie")) {
      if (h.startsWith(name + "=")) {
        return h.substring(name.length() + 1, h.indexOf(';') < 0 ? h.length() : h.indexOf(';'));
      }
    }
    return null;
  }
}
