package dev.room.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {
  @Test
  void flagsOverrideEnvironmentOverrideDefaults() throws Exception {
    Settings s =
        Settings.parse(
            new String[] {"--capacity", "50", "--work=2s", "--trust-proxy", "--state-file", "none"},
            Map.of("ROOM_CAPACITY", "30", "ROOM_RATE", "1.25", "PORT", "9090"));
    assertEquals(50, s.capacity);
    assertEquals(Duration.ofSeconds(2), s.work);
    assertTrue(s.trustProxy);
    assertNull(s.stateFile);
    assertEquals(new BigDecimal("1.25"), s.rate);
    assertEquals(9090, s.port);
    assertEquals(Path.of("room-admin-token"), s.adminTokenFile);
  }

  @Test
  void durationsReadLikePeopleWriteThem() {
    assertEquals(Duration.ofMillis(500), Settings.duration("x", "500ms"));
    assertEquals(Duration.ofSeconds(30), Settings.duration("x", "30s"));
    assertEquals(Duration.ofMinutes(5), Settings.duration("x", "5m"));
    assertEquals(Duration.ofHours(2), Settings.duration("x", "2h"));
    assertEquals(Duration.ofMinutes(5), Settings.duration("x", "PT5M"));
    assertEquals(Duration.ofSeconds(45), Settings.duration("x", "45"));
    assertThrows(IllegalArgumentException.class, () -> Settings.duration("x", "soon"));
  }

  @Test
  void mistakesAreExplained() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Settings.parse(new String[] {"--capacty", "5"}, Map.of()));
    assertTrue(e.getMessage().contains("--capacty"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> Settings.parse(new String[] {"--capacity", "0"}, Map.of()));
    assertThrows(
        Settings.HelpRequested.class, () -> Settings.parse(new String[] {"--help"}, Map.of()));
    assertTrue(Settings.usage().contains("ROOM_ADMIN_TOKEN"));
  }
}
