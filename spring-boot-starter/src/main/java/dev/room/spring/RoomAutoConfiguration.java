package dev.room.spring;

import dev.room.WaitingRoom;
import dev.room.WaitingRoomFilter;
import jakarta.servlet.DispatcherType;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.web.ServerProperties;
import org.springframework.boot.autoconfigure.web.servlet.ServletWebServerFactoryAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Puts a waiting room in front of a servlet application: a {@link WaitingRoom} bean from {@code
 * room.*} (unless the application defines its own) and its {@link WaitingRoomFilter}, registered
 * for {@code REQUEST} dispatches with async support, early in the filter chain, with the actuator's
 * base path bypassed. Start-up fails, naming the property to change, when a value is bad or the
 * capacity leaves the server's worker threads no headroom.
 */
@AutoConfiguration(after = ServletWebServerFactoryAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "room", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RoomProperties.class)
public class RoomAutoConfiguration {
  private static final String ACTUATOR =
      "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

  /** The worker threads gated requests run on, as the server properties set them. */
  @Bean
  WorkerThreads roomWorkerThreads(
      RoomProperties properties,
      ObjectProvider<ServerProperties> server,
      ListableBeanFactory beans,
      Environment environment) {
    return WorkerThreads.of(properties, server.getIfAvailable(), beans, environment);
  }

  /** The room, built from {@code room.*} and then the {@link WaitingRoomCustomizer} beans. */
  @Bean
  @ConditionalOnMissingBean
  public WaitingRoom waitingRoom(
      RoomProperties properties,
      ObjectProvider<WaitingRoomCustomizer> customizers,
      WorkerThreads roomWorkerThreads) {
    return RoomFactory.build(
        properties, customizers.orderedStream().toList(), roomWorkerThreads); // closed by Spring
  }

  /** The filter; define a bean named {@code waitingRoomFilter} to register it your own way. */
  @Bean
  @ConditionalOnMissingBean(name = "waitingRoomFilter")
  public FilterRegistrationBean<WaitingRoomFilter> waitingRoomFilter(
      WaitingRoom room,
      RoomProperties properties,
      WorkerThreads roomWorkerThreads,
      Environment environment) {
    // Also for a room the application built itself: the threads do not care who set capacity.
    roomWorkerThreads.check(room.capacity(), "the WaitingRoom bean's capacity");
    WaitingRoomFilter filter = new WaitingRoomFilter(room);
    RoomFactory.set("room.status-path", properties.getStatusPath(), filter::statusPath);
    List<String> bypass = new ArrayList<>();
    for (String p : properties.getBypassPaths()) {
      if (p != null && !p.isBlank()) {
        bypass.add(p.strip());
      }
    }
    RoomFactory.set(
        "room.bypass-paths", bypass, paths -> filter.bypassPaths(paths.toArray(String[]::new)));
    if (properties.isBypassActuator()
        && ClassUtils.isPresent(ACTUATOR, RoomAutoConfiguration.class.getClassLoader())) {
      String actuator = actuatorPath(environment);
      if (actuator != null) {
        RoomFactory.set("management.endpoints.web.base-path", actuator, p -> filter.bypassPaths(p));
      }
    }
    FilterRegistrationBean<WaitingRoomFilter> registration = new FilterRegistrationBean<>(filter);
    registration.setName("waitingRoom");
    registration.setUrlPatterns(properties.getUrlPatterns());
    registration.setDispatcherTypes(DispatcherType.REQUEST);
    registration.setAsyncSupported(true);
    registration.setOrder(properties.getFilterOrder());
    return registration;
  }

  /**
   * The actuator's path as the filter sees it (servlet path and base path), or null when the
   * actuator sits at the root, where bypassing it would bypass everything.
   */
  static String actuatorPath(Environment environment) {
    String servlet = trim(environment.getProperty("spring.mvc.servlet.path", ""));
    String base = trim(environment.getProperty("management.endpoints.web.base-path", "/actuator"));
    return base.isEmpty() ? null : servlet + base;
  }

  private static String trim(String path) {
    String p = path.strip();
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p.isEmpty() || p.startsWith("/") ? p : "/" + p;
  }
}
