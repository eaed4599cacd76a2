/**
 * The storage contract beneath a {@link dev.room.WaitingRoom}: one line, its slots and its passes.
 *
 * <p>The library ships the implementations (the in-memory default and {@code
 * dev.room.redis.RedisLine}); the types here are public so a room can be built on either. Every
 * operation is atomic; all policy (TTL, grace, rate limits, pricing, events) stays in the room and
 * arrives as a {@link dev.room.spi.Policy}.
 */
package dev.room.spi;
