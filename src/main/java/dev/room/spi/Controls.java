package dev.room.spi;

/**
 * The sale controls a room shares with every other instance on its line: mode, announcement and
 * admission rate, with a version that moves on every change. One instance writes a control; the
 * others read the whole set at most once a second and adopt what changed, so a setting made on any
 * instance is in force on all within about a second. Values are the room's own encodings ({@code
 * RoomMode} names, the announcement text, the rate as a decimal).
 */
public interface Controls {
  /** The mode control. */
  String MODE = "mode";

  /** The announcement control. */
  String ANNOUNCEMENT = "announcement";

  /** The admission-rate control. */
  String RATE = "rate";

  /**
   * What is set now.
   *
   * @param version moves on every write; 0 when nothing was ever written
   * @param mode the mode's name, or null when never set
   * @param announcement the announcement, or null when never set
   * @param rate the admission rate as written, or null when never set
   */
  record Settings(long version, String mode, String announcement, String rate) {
    /** Nothing written yet. */
    public static final Settings NONE = new Settings(0, null, null, null);
  }

  /** The current settings. */
  Settings read();

  /**
   * Sets {@code control} ({@link #MODE}, {@link #ANNOUNCEMENT} or {@link #RATE}) to {@code value};
   * returns the new version.
   */
  long write(String control, String value);
}
