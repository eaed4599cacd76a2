package dev.room;

/** The base of the room's own runtime exceptions. */
public class RoomException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RoomException(String message) {
    super(message);
  }

  public RoomException(String message, Throwable cause) {
    super(message, cause);
  }
}
