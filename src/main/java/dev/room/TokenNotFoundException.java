package dev.room;

/** The token is not in line: unknown, expired, removed, or already admitted. */
public final class TokenNotFoundException extends RoomException {
  private static final long serialVersionUID = 1L;

  public TokenNotFoundException() {
    super("token not found: unknown, expired, removed or already admitted");
  }
}
