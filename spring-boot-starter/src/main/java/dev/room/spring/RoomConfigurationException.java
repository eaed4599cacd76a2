package dev.room.spring;

/**
 * The room's Spring configuration cannot work: a bad {@code room.*} value, or a capacity the
 * server's worker threads cannot serve. Thrown at start-up; Spring Boot prints its message and the
 * action to take instead of a stack trace.
 */
public final class RoomConfigurationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String action;

  RoomConfigurationException(String description, String action, Throwable cause) {
    super(description, cause);
    this.action = action;
  }

  /** What to change, naming the property. */
  public String action() {
    return action;
  }
}
