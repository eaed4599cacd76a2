package dev.room.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.room.Event;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import dev.room.metrics.RoomMetrics;
import dev.room.spring.shop.ShopApplication;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** The starter in a real Spring Boot application on Tomcat, on an ephemeral port. */
@SpringBootTest(
    classes = ShopApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "room.capacity=1",
      "room.token-ttl=2m",
      "room.max-queue-depth=100",
      "room.bypass-paths=/static",
      "room.currency=EUR",
      "room.line-persisted=true",
      "server.tomcat.threads.max=20",
      "management.endpoints.web.exposure.include=health,room"
    })
class RoomStarterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @LocalServerPort int port;
  @Autowired WaitingRoom room;
  @Autowired ShopApplication.Parking parking;
  @Autowired FilterRegistrationBean<WaitingRoomFilter> registration;
  @Autowired MeterRegistry meters;

  Http http;

  @BeforeEach
  void setUp() {
    http = new Http(port);
  }

  @AfterEach
  void reset() {
    parking.reset();
    room.removeTokensIf(t -> true);
    room.setMode(RoomMode.OPEN);
    room.setAnnouncement("");
    room.setCapacity(1);
  }

  @Test
  void propertiesConfigureTheRoomAndTheFilter() {
    assertThat(room.capacity()).isEqualTo(1);
    assertThat(room.tokenTtl()).isEqualTo(Duration.ofMinutes(2));
    assertThat(room.maxQueueDepth()).isEqualTo(100);
    assertThat(room.currency()).isEqualTo(java.util.Currency.getInstance("EUR"));
    assertThat(room.linePersisted()).isTrue();
    assertThat(registration.getFilter().room()).isSameAs(room);
    assertThat(registration.isAsyncSupported()).isTrue();
    assertThat(registration.getUrlPatterns()).containsExactly("/*");
  }

  @Test
  void beyondCapacityVisitorsGetTheWaitingPageAndAreAdmittedWhenTheSlotFrees() throws Exception {
    CompletableFuture<HttpResponse<String>> first = http.getAsync("/park");
    assertThat(parking.awaitParked()).as("the first request holds the only slot").isTrue();

    HttpResponse<String> page = http.get("/shop", "Accept", "text/html");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body())
        .contains("<title>You&#39;re in line</title>")
        .doesNotContain("the shop");
    String ticket = Http.cookie(page, "room_ticket");
    assertThat(ticket).isNotEmpty();

    HttpResponse<String> json = http.get("/shop", "Accept", "application/json");
    assertThat(json.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(json.body()).get("ready").asBoolean()).isFalse();

    // Health checks, the actuator and bypassed paths answer while the room is full.
    assertThat(http.get("/actuator/health").statusCode()).isEqualTo(200);
    assertThat(http.get("/static/logo").body()).isEqualTo("logo");
    JsonNode state = JSON.readTree(http.get("/actuator/room").body());
    assertThat(state.get("capacity").asInt()).isEqualTo(1);
    assertThat(state.get("inFlight").asInt()).isEqualTo(1);
    assertThat(state.get("queueDepth").asLong()).isEqualTo(2);

    CountDownLatch exited = new CountDownLatch(1);
    room.on(Event.EXIT, s -> exited.countDown());
    try {
      parking.release();
      HttpResponse<String> done = first.get(10, TimeUnit.SECONDS);
      assertThat(done.body()).isEqualTo("parked, then served");
      assertThat(exited.await(10, TimeUnit.SECONDS)).as("the slot was given back").isTrue();
    } finally {
      room.off(Event.EXIT);
    }

    HttpResponse<String> status = http.get("/queue/status", "Cookie", "room_ticket=" + ticket);
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(status.body()).get("ready").asBoolean()).isTrue();
    HttpResponse<String> in = http.get("/shop", "Cookie", "room_ticket=" + ticket);
    assertThat(in.statusCode()).isEqualTo(200);
    assertThat(in.body()).isEqualTo("the shop");
  }

  @Test
  void actuatorEndpointReadsAndWritesModeAnnouncementAndCapacity() throws Exception {
    HttpResponse<String> read = http.get("/actuator/room");
    assertThat(read.statusCode()).isEqualTo(200);
    JsonNode state = JSON.readTree(read.body());
    assertThat(state.get("mode").asText()).isEqualTo("OPEN");
    assertThat(state.get("announcement").asText()).isEmpty();
    assertThat(state.get("admissionMode").asText()).isEqualTo("REQUESTS");
    assertThat(state.get("activeSessions").asInt()).isZero();

    HttpResponse<String> write =
        http.postJson(
            "/actuator/room",
            "{\"mode\":\"paused\",\"announcement\":\"Back at ten\",\"capacity\":3}");
    assertThat(write.statusCode()).isEqualTo(200);
    JsonNode after = JSON.readTree(write.body());
    assertThat(after.get("mode").asText()).isEqualTo("PAUSED");
    assertThat(after.get("announcement").asText()).isEqualTo("Back at ten");
    assertThat(after.get("capacity").asInt()).isEqualTo(3);
    assertThat(room.mode()).isEqualTo(RoomMode.PAUSED);
    assertThat(room.announcement()).isEqualTo("Back at ten");
    assertThat(room.capacity()).isEqualTo(3);

    assertThat(http.postJson("/actuator/room", "{\"mode\":\"queue-all\"}").statusCode())
        .isEqualTo(200);
    assertThat(room.mode()).isEqualTo(RoomMode.QUEUE_ALL);
  }

  @Test
  void actuatorRefusesACapacityTheWorkerThreadsCannotServeAndChangesNothing() throws Exception {
    // 20 threads keep 10 free: capacity 10 fits, 11 does not.
    assertThat(http.postJson("/actuator/room", "{\"capacity\":10}").statusCode()).isEqualTo(200);
    HttpResponse<String> tooMany =
        http.postJson("/actuator/room", "{\"capacity\":11,\"mode\":\"closed\"}");
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(http.postJson("/actuator/room", "{\"capacity\":0}").statusCode()).isEqualTo(400);
    assertThat(http.postJson("/actuator/room", "{}").statusCode()).isEqualTo(400);
    assertThat(http.postJson("/actuator/room", "{\"mode\":\"sideways\"}").statusCode())
        .isEqualTo(400);
    assertThat(room.capacity()).isEqualTo(10);
    assertThat(room.mode()).isEqualTo(RoomMode.OPEN);
  }

  @Test
  void micrometerBinderPublishesTheRoom() {
    assertThat(meters.get(RoomMetrics.CAPACITY).gauge().value()).isEqualTo(1.0);
    assertThat(meters.get(RoomMetrics.IN_FLIGHT).gauge().value()).isZero();
  }
}
