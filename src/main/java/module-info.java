/**
 * room: a drop-in FIFO virtual waiting room for Jakarta Servlet applications.
 *
 * <p>{@code dev.room} is the API; {@code dev.room.spi} is the storage contract the line
 * implementations share. The engine ({@code dev.room.engine}) is not exported.
 */
module dev.room {
  requires transitive jakarta.servlet;
  requires com.fasterxml.jackson.databind;
  requires org.slf4j;

  exports dev.room;
  exports dev.room.spi;
}
