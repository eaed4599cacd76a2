package dev.room;

import java.io.IOException;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A cookie-keeping HTTP client that behaves like one browser tab. */
public final class Browser {
  private final CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);
  private final HttpClient client;

  public Browser() {
    client =
        HttpClient.newBuilder()
            .cookieHandler(cookies)
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  public HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return get(url, "text/html");
  }

  public HttpResponse<String> get(String url, String accept)
      throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .header("Accept", accept)
            .GET()
            .build();
    return client.send(req, HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> send(HttpRequest req) throws IOException, InterruptedException {
    return client.send(req, HttpResponse.BodyHandlers.ofString());
  }

  /** The value of cookie {@code name}, or null. */
  public String cookie(String name) {
    for (HttpCookie c : cookies.getCookieStore().getCookies()) {
      if (c.getName().equals(name)) {
        return c.getValue();
      }
    }
    return null;
  }

  public void setCookie(String url, String name, String value) {
    HttpCookie c = new HttpCookie(name, value);
    c.setPath("/");
    c.setDomain(URI.create(url).getHost());
    c.setVersion(0);
    cookies.getCookieStore().add(URI.create(url), c);
  }

  public void clearCookies() {
    cookies.getCookieStore().removeAll();
  }
}
