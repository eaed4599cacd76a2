package dev.room.spring;

import dev.room.WaitingRoom;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The actuator endpoint {@code room} ({@link RoomEndpoint}), when the actuator is present. */
@AutoConfiguration(after = RoomAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
      "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
    })
@ConditionalOnBean(WaitingRoom.class)
public class RoomEndpointAutoConfiguration {
  /** The endpoint; a capacity written to it obeys the same worker-thread rule as start-up. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  public RoomEndpoint roomEndpoint(WaitingRoom room, ObjectProvider<WorkerThreads> threads) {
    return new RoomEndpoint(room, threads.getIfAvailable(() -> WorkerThreads.UNLIMITED));
  }
}
