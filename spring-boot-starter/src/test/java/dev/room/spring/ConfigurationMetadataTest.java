package dev.room.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** IDEs complete room.* from the metadata the annotation processor writes into the jar. */
class ConfigurationMetadataTest {
  @Test
  void everyBuilderPropertyIsDescribedWithItsDefault() throws Exception {
    JsonNode metadata;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("spring-configuration-metadata.json in the jar").isNotNull();
      metadata = new ObjectMapper().readTree(in);
    }
    Map<String, JsonNode> properties = new HashMap<>();
    metadata.get("properties").forEach(p -> properties.put(p.get("name").asText(), p));
    assertThat(properties)
        .containsKeys(
            "room.capacity",
            "room.token-ttl",
            "room.first-poll-grace",
            "room.max-queue-depth",
            "room.admission-mode",
            "room.name",
            "room.bypass-paths",
            "room.status-path",
            "room.offer-timeout",
            "room.reaper-interval",
            "room.secure-cookie",
            "room.cookie-path",
            "room.mode",
            "room.announcement",
            "room.admission-rate",
            "room.session-duration",
            "room.session-max-duration",
            "room.redis.uri",
            "room.redis.room-id",
            "room.worker-thread-check");
    properties.forEach(
        (name, p) -> assertThat(p.path("description").asText()).as(name).isNotBlank());
    assertThat(properties.get("room.token-ttl").get("defaultValue").asText()).isEqualTo("5m");
    assertThat(properties.get("room.filter-order").get("defaultValue").asInt())
        .isEqualTo(Integer.MIN_VALUE + 10);
  }
}
