/**
 * Micrometer meters for a {@link dev.room.WaitingRoom}: see {@link dev.room.metrics.RoomMetrics}.
 *
 * <p>Usable only when {@code io.micrometer:micrometer-core}, an optional dependency of {@code
 * room}, is present.
 */
package dev.room.metrics;
