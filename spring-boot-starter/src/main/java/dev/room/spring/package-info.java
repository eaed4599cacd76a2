/**
 * Spring Boot 3 auto-configuration for room: a {@link dev.room.WaitingRoom} bean built from {@code
 * room.*} properties ({@link dev.room.spring.RoomProperties}), its filter, the Micrometer binder
 * and the actuator endpoint {@code room} ({@link dev.room.spring.RoomEndpoint}).
 */
package dev.room.spring;
