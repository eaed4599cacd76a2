package dev.room.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link RoomConfigurationException} into Spring Boot's "APPLICATION FAILED TO START". */
final class RoomFailureAnalyzer extends AbstractFailureAnalyzer<RoomConfigurationException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, RoomConfigurationException cause) {
    return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
  }
}
