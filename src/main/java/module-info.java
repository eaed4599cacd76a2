/**
 * room: a drop-in FIFO virtual waiting room for Jakarta Servlet applications.
 *
 * <p>{@code dev.room} is the API; {@code dev.room.spi} is the storage contract the line
 * implementations share. The engine ({@code dev.room.engine}) is not exported.
 *
 * <p>{@code dev.room.audit} is the verifiable admission log and its verifier.
 *
 * <p>{@code dev.room.metrics} is a Micrometer binder. Micrometer is an optional dependency (an
 * automatic module), hence {@code requires static transitive}: the binder's signatures use its
 * types, and applications that use the binder have it anyway.
 */
// lettuce.core and micrometer.core name themselves in their manifests only
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.room {
  requires transitive jakarta.servlet;
  requires com.fasterxml.jackson.databind;
  requires org.slf4j;
  requires static transitive micrometer.core;
  requires static lettuce.core;

  exports dev.room;
  exports dev.room.spi;
  exports dev.room.metrics;
  exports dev.room.redis;
  exports dev.room.audit;
}
