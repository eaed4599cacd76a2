package dev.room.engine;

import dev.room.spi.Controls;

/** The controls of a line only one room uses: held in this process, read and written at once. */
public final class LocalControls implements Controls {
  private Settings settings = Settings.NONE;

  @Override
  public synchronized Settings read() {
    return settings;
  }

  @Override
  public synchronized long write(String control, String value) {
    Settings s = settings;
    long v = s.version() + 1;
    settings =
        switch (control) {
          case MODE -> new Settings(v, value, s.announcement(), s.rate());
          case ANNOUNCEMENT -> new Settings(v, s.mode(), value, s.rate());
          case RATE -> new Settings(v, s.mode(), s.announcement(), value);
          default -> throw new IllegalArgumentException("no control named " + control);
        };
    return v;
  }
}
