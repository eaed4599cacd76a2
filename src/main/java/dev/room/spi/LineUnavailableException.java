package dev.room.spi;

import dev.room.RoomException;

/**
 * The line's storage cannot be reached (a shared line whose server is down or unreachable).
 *
 * <p>Thrown by the operations that need the storage; the filter and the status endpoint answer such
 * a request with 503 and {@code Retry-After}, so a visitor never sees a server error and a waiting
 * client keeps its ticket. The line recovers on its own when the storage returns.
 */
public final class LineUnavailableException extends RoomException {
  private static final long serialVersionUID = 1L;

  public LineUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
