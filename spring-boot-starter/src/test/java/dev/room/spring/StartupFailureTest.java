package dev.room.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.room.WaitingRoom;
import dev.room.spring.shop.ShopApplication;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/** Start-up stops, naming the property to change, before a room that cannot work serves anyone. */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureTest {
  private static RoomConfigurationException startFails(Class<?>[] sources, String... properties) {
    var app =
        new SpringApplicationBuilder(sources)
            .properties("server.port=0", "spring.main.banner-mode=off")
            .properties(properties);
    Throwable thrown = null;
    try (ConfigurableApplicationContext started = app.run()) {
      assertThat(started.isActive()).as("start-up must fail, but the application runs").isFalse();
    } catch (RuntimeException e) {
      thrown = e;
    }
    assertThat(thrown).as("start-up must fail").isNotNull();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      if (t instanceof RoomConfigurationException r) {
        return r;
      }
    }
    throw new AssertionError(
        "no RoomConfigurationException in the causes", NestedExceptionUtils.getRootCause(thrown));
  }

  private static RoomConfigurationException startFails(String... properties) {
    return startFails(new Class<?>[] {ShopApplication.class}, properties);
  }

  @Test
  void capacityAtOrAboveTomcatsDefaultThreadsFailsNamingBothProperties(CapturedOutput output) {
    // The case: capacity(500) on Tomcat's default 200 threads.
    RoomConfigurationException e = startFails("room.capacity=500");
    assertThat(e.getMessage())
        .contains("room.capacity=500")
        .contains("server.tomcat.threads.max=200")
        .contains("accept queue");
    assertThat(e.action())
        .contains("Set room.capacity to at most 180")
        .contains("raise server.tomcat.threads.max to at least 555");
    // Spring Boot's failure report, not a stack trace, is what the developer reads.
    assertThat(output).contains("APPLICATION FAILED TO START").contains("Action:");
  }

  @Test
  void capacityEqualToTheThreadsFails() {
    RoomConfigurationException e = startFails("room.capacity=40", "server.tomcat.threads.max=40");
    assertThat(e.action()).contains("at most 30").contains("at least 50");
  }

  @Test
  void capacityWithinTheHeadroomStartsAndTheCheckCanBeTurnedOff() {
    var fits =
        new SpringApplicationBuilder(ShopApplication.class)
            .properties("server.port=0", "room.capacity=30", "server.tomcat.threads.max=40");
    try (ConfigurableApplicationContext c = fits.run()) {
      assertThat(c.getBean(WaitingRoom.class).capacity()).isEqualTo(30);
    }
    var async =
        new SpringApplicationBuilder(ShopApplication.class)
            .properties("server.port=0", "room.capacity=500", "room.worker-thread-check=false");
    try (ConfigurableApplicationContext c = async.run()) {
      assertThat(c.getBean(WaitingRoom.class).capacity()).isEqualTo(500);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class BigRoom {
    @Bean
    WaitingRoom bigRoom() {
      return WaitingRoom.create(250);
    }
  }

  @Test
  void theApplicationsOwnRoomIsCheckedToo() {
    RoomConfigurationException e =
        startFails(new Class<?>[] {ShopApplication.class, BigRoom.class});
    assertThat(e.getMessage()).contains("the WaitingRoom bean's capacity=250");
    assertThat(e.action()).contains("server.tomcat.threads.max to at least 277");
  }

  @Test
  void missingCapacityFailsWithWhatToSet() {
    RoomConfigurationException e = startFails();
    assertThat(e.getMessage()).contains("room.capacity is not set");
    assertThat(e.action())
        .contains("Set room.capacity (at most 180")
        .contains("room.enabled=false");
  }

  @Test
  void aBadValueFailsNamingItsProperty() {
    RoomConfigurationException e = startFails("room.capacity=5", "room.bypass-paths=static");
    assertThat(e.getMessage()).startsWith("room.bypass-paths is invalid:");
    // The same messages, without starting an application each time:
    assertThat(badValue("room.token-ttl", Duration.ofSeconds(10)).getMessage())
        .isEqualTo(
            "room.token-ttl is invalid: tokenTtl must be ZERO or between PT30S and PT24H, was PT10S");
    // The builder checks the name only when it builds; its message still finds the property.
    RoomConfigurationException name = badValue("room.name", "Not A Name");
    assertThat(name.getMessage()).startsWith("room.name is invalid: name must be");
    assertThat(name.action()).isEqualTo("Change room.name in your application properties.");
  }

  private static RoomConfigurationException badValue(String property, Object value) {
    RoomProperties p = new RoomProperties();
    p.setCapacity(5);
    switch (property) {
      case "room.token-ttl" -> p.setTokenTtl((Duration) value);
      case "room.name" -> p.setName((String) value);
      default -> throw new IllegalArgumentException(property);
    }
    Throwable t = catchThrowable(() -> RoomFactory.build(p, List.of(), WorkerThreads.UNLIMITED));
    assertThat(t).isInstanceOf(RoomConfigurationException.class);
    return (RoomConfigurationException) t;
  }

  @Test
  void aRedisUriWithoutARoomIdFails() {
    RoomConfigurationException e =
        startFails("room.capacity=5", "room.redis.uri=redis://127.0.0.1:1");
    assertThat(e.action()).contains("room.redis.room-id");
  }

  @Test
  void theRoomCanBeTurnedOff() {
    var off =
        new SpringApplicationBuilder(ShopApplication.class)
            .properties("server.port=0", "room.enabled=false");
    try (ConfigurableApplicationContext c = off.run()) {
      assertThat(c.getBeansOfType(WaitingRoom.class)).isEmpty();
      assertThat(c.getBeansOfType(RoomEndpoint.class)).isEmpty();
    }
  }
}
