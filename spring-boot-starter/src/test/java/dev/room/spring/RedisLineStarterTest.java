package dev.room.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.room.WaitingRoom;
import dev.room.spring.shop.ShopApplication;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** room.redis.uri builds a RedisLine: two applications with one room id share one line. */
class RedisLineStarterTest {
  private static ConfigurableApplicationContext start(String uri) {
    return new SpringApplicationBuilder(ShopApplication.class)
        .properties(
            "server.port=0",
            "room.capacity=1",
            "room.redis.uri=" + uri,
            "room.redis.room-id=starter-test")
        .run();
  }

  private static int port(ConfigurableApplicationContext c) {
    return ((WebServerApplicationContext) c).getWebServer().getPort();
  }

  @Test
  void twoInstancesWithOneRoomIdShareTheirCapacity() throws Exception {
    try (RedisServer redis = RedisServer.start();
        ConfigurableApplicationContext a = start(redis.uri());
        ConfigurableApplicationContext b = start(redis.uri())) {
      ShopApplication.Parking parking = a.getBean(ShopApplication.Parking.class);
      CompletableFuture<HttpResponse<String>> parked = new Http(port(a)).getAsync("/park");
      try {
        assertThat(parking.awaitParked()).isTrue();
        // The only slot is held on instance a, so instance b queues its visitor.
        HttpResponse<String> page = new Http(port(b)).get("/shop", "Accept", "text/html");
        assertThat(page.body()).contains("<title>You&#39;re in line</title>");
        assertThat(b.getBean(WaitingRoom.class).inFlight()).isEqualTo(1);
      } finally {
        parking.release();
      }
      assertThat(parked.get().body()).isEqualTo("parked, then served");
    }
  }
}
