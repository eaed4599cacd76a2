package dev.room;

/** Helpers for comparing status JSON bodies in tests. */
public final class StatusBodies {
  private StatusBodies() {}

  /** The body without its {@code poll_after_ms}, which carries random jitter. */
  public static String stable(String body) {
    return body.replaceAll(",\"poll_after_ms\":\\d+", "");
  }
}
