package dev.room;

/**
 * What {@link WaitingRoom#importFrom} restored.
 *
 * @param restored tickets put back in line
 * @param droppedStale tickets dropped because they had expired before the export
 * @param passesRestored VIP passes kept
 * @param passesExpired VIP passes dropped because they had expired
 */
public record ImportStats(int restored, int droppedStale, int passesRestored, int passesExpired) {}
