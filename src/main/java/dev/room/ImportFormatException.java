package dev.room;

import java.io.IOException;

/** An export could not be read: malformed, truncated, or of an unknown version. */
public final class ImportFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  public ImportFormatException(String message) {
    super(message);
  }

  public ImportFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
