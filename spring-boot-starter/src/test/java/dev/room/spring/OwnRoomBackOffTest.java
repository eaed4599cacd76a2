package dev.room.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import dev.room.spring.shop.ShopApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/** An application that defines its own WaitingRoom keeps it; the starter wires that one. */
@SpringBootTest(
    classes = {ShopApplication.class, OwnRoomBackOffTest.OwnRoom.class},
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"room.capacity=7", "management.endpoints.web.exposure.include=room"})
class OwnRoomBackOffTest {
  @TestConfiguration(proxyBeanMethods = false)
  static class OwnRoom {
    @Bean
    WaitingRoom myRoom() {
      return WaitingRoom.builder().capacity(2).name("own").build();
    }
  }

  @LocalServerPort int port;
  @Autowired ApplicationContext context;
  @Autowired FilterRegistrationBean<WaitingRoomFilter> registration;

  @Test
  void theApplicationsRoomIsTheOnlyOneAndTheFilterGatesWithIt() throws Exception {
    assertThat(context.getBeansOfType(WaitingRoom.class)).containsOnlyKeys("myRoom");
    WaitingRoom own = context.getBean(WaitingRoom.class);
    assertThat(own.capacity()).as("room.capacity applies to the starter's room only").isEqualTo(2);
    assertThat(registration.getFilter().room()).isSameAs(own);
    assertThat(context.getBean(RoomEndpoint.class).state().capacity()).isEqualTo(2);

    Http http = new Http(port);
    assertThat(http.get("/shop").body()).isEqualTo("the shop");
    assertThat(http.get("/queue/own/status").body()).contains("\"ready\"");
  }
}
