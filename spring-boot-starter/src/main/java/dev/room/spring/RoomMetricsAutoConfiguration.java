package dev.room.spring;

import dev.room.WaitingRoom;
import dev.room.metrics.RoomMetrics;
import io.micrometer.core.instrument.Tags;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The room's Micrometer binder ({@link RoomMetrics}): Spring Boot binds every {@code MeterBinder}
 * bean to its registry, so {@code room.in.flight}, {@code room.queue.depth}, … appear with the
 * application's other metrics. A named room tags its meters {@code room=<name>}.
 */
@AutoConfiguration(after = RoomAutoConfiguration.class)
@ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
@ConditionalOnBean(WaitingRoom.class)
public class RoomMetricsAutoConfiguration {
  /** The binder for the room bean. */
  @Bean
  @ConditionalOnMissingBean
  public RoomMetrics roomMetrics(WaitingRoom room) {
    String name = room.name();
    return name.isEmpty() ? new RoomMetrics(room) : new RoomMetrics(room, Tags.of("room", name));
  }
}
