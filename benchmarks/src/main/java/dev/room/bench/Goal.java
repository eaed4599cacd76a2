package dev.room.bench;

/**
 * One goal from the issue: what was promised, what this run measured, whether it held.
 *
 * @param area what is measured
 * @param target the goal, as the issue states it
 * @param measured the figure, with its spread
 * @param met whether the median meets the goal
 * @param note what limits the figure, said where the goal is missed
 */
record Goal(String area, String target, String measured, boolean met, String note) {}
