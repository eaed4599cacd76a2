package dev.room.spi;

import java.util.function.IntFunction;

/**
 * A room's pre-sale lottery as every instance on its line sees it: the schedule, the seed (whose
 * SHA-256 is the commitment published before the draw) and the draw, with a version that moves on
 * every change. Any instance may schedule, move or cancel the pre-sale; the others read the state
 * at most once a second and adopt it. The draw happens exactly once for the line, in one step with
 * recording it: whichever instance gets there first at or after the opening draws, every other's
 * attempt changes nothing and reads the result.
 *
 * <p>The seed is the lottery's secret until the draw: an implementation must not log it.
 */
public interface PresaleStore {
  /**
   * The pre-sale as it stands.
   *
   * @param version moves on every change; 0 when nothing was ever written (a version that goes back
   *     means the store lost the state)
   * @param opensAt the opening, epoch millis; 0 when none is scheduled
   * @param seed the seed in lower-case hex, or null when none is scheduled
   * @param drawn whether the draw took place
   * @param group how many arrivals the draw placed
   */
  record State(long version, long opensAt, String seed, boolean drawn, int group) {
    /** Nothing scheduled, nothing ever written. */
    public static final State NONE = new State(0, 0, null, false, 0);

    /** Whether a pre-sale is scheduled (drawn or not). */
    public boolean scheduled() {
      return seed != null;
    }

    /** Never prints the seed. */
    @Override
    public String toString() {
      return "PresaleStore.State[version="
          + version
          + ", opensAt="
          + opensAt
          + ", scheduled="
          + scheduled()
          + ", drawn="
          + drawn
          + ", group="
          + group
          + "]";
    }
  }

  /** The state now. */
  State read();

  /**
   * Schedules the pre-sale to open at {@code opensAt}, or moves the one scheduled: a first schedule
   * sets {@code seed} (hex), a move keeps the seed already set, so the published commitment stays
   * valid. Once drawn nothing changes. Returns the state after.
   */
  State schedule(long opensAt, String seed);

  /** Cancels a pre-sale not drawn yet; once drawn nothing changes. Returns the state after. */
  State cancel();

  /**
   * Replaces the state whatever it is (an imported line's pre-sale, or a room re-seeding a store
   * that lost it); a null {@code seed} removes the pre-sale. Returns the state after.
   */
  State replace(long opensAt, String seed, boolean drawn, int group);

  /**
   * The draw, exactly once. When a pre-sale with {@code seed} is scheduled, not drawn, and opens at
   * or before {@code now}, gives the line's pre-sale group its drawn places ({@link
   * Line#drawPresale}, {@code order} as there) and records the pre-sale drawn with the group's
   * size, in one step no other caller on this store can interleave, and returns that size.
   * Otherwise nothing moves and it returns -1 (drawn already, by this caller or another; not open
   * yet; or another seed scheduled).
   *
   * @throws IllegalArgumentException when {@code order} is not a permutation; nothing moves
   */
  int draw(long now, String seed, IntFunction<int[]> order);
}
