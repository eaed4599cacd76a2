package dev.room.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import dev.room.metrics.RoomMetrics;
import dev.room.spring.shop.ShopApplication;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** The README's hand-written Spring Boot configuration, as printed, with the starter turned off. */
class HandWrittenConfigTest {
  // ---- README: Spring Boot 3, "By hand, without the starter" ----
  @Configuration
  static class WaitingRoomConfig {
    @Bean
    WaitingRoom waitingRoom() {
      // below Tomcat's 200 worker threads (server.tomcat.threads.max), with headroom
      return WaitingRoom.builder().capacity(150).build();
    }

    @Bean
    FilterRegistrationBean<WaitingRoomFilter> waitingRoomFilter(WaitingRoom room) {
      var registration =
          new FilterRegistrationBean<>(
              new WaitingRoomFilter(room).bypassPaths("/actuator", "/static"));
      registration.addUrlPatterns("/*");
      registration.setDispatcherTypes(DispatcherType.REQUEST);
      registration.setAsyncSupported(true);
      registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10); // before security and your filters
      return registration;
    }

    @Bean // optional: with the actuator and a Prometheus registry, on /actuator/prometheus
    RoomMetrics waitingRoomMetrics(WaitingRoom room) {
      return new RoomMetrics(room);
    }
  }

  // ---- end of the README's snippet ----

  @Test
  void theSnippetGatesTheApplication() throws Exception {
    var app =
        new SpringApplicationBuilder(ShopApplication.class, WaitingRoomConfig.class)
            .properties("server.port=0", "room.enabled=false");
    try (ConfigurableApplicationContext c = app.run()) {
      Http http = new Http(((WebServerApplicationContext) c).getWebServer().getPort());
      assertThat(http.get("/shop").body()).isEqualTo("the shop");
      assertThat(http.get("/queue/status").body())
          .isEqualTo("{\"ready\":false,\"cookies_required\":true}");
      assertThat(c.getBean(WaitingRoom.class).capacity()).isEqualTo(150);
      assertThat(c.getBeansOfType(RoomMetrics.class)).containsOnlyKeys("waitingRoomMetrics");
    }
  }
}
