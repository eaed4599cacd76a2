package dev.room.redis;

import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@code redis-server} for a test class: started before its first test, stopped after its
 * last. Register it as {@code @RegisterExtension static final RedisPerClass redis = new
 * RedisPerClass();}. Skips (fails on CI) without the binary, as {@link RedisServer#start()} does.
 */
final class RedisPerClass implements BeforeAllCallback, AfterAllCallback {
  private RedisServer server;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    server = RedisServer.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  RedisServer server() {
    if (server == null) {
      throw new IllegalStateException("redis-server is started before the class's first test");
    }
    return server;
  }

  String uri() {
    return server().uri();
  }

  void stop() throws InterruptedException {
    server().stop();
  }

  void restartEmpty() throws IOException {
    server().restartEmpty();
  }
}
