package dev.room.spi;

/**
 * Where a promotion took a ticket.
 *
 * @param from the position before the move
 * @param to the position after it; equal to {@code from} when nothing moved
 * @param depth the number of waiting tickets when the move was made
 */
public record Move(long from, long to, long depth) {}
