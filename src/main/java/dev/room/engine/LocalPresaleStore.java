package dev.room.engine;

import dev.room.spi.Line;
import dev.room.spi.PresaleStore;
import java.util.function.IntFunction;

/**
 * The pre-sale of a line only one room uses: held in this process. The draw is exactly once because
 * it runs under this object's monitor, which every change takes.
 */
public final class LocalPresaleStore implements PresaleStore {
  private final Line line;
  private State state = State.NONE;

  /** A store whose draws move {@code line}. */
  public LocalPresaleStore(Line line) {
    this.line = line;
  }

  @Override
  public synchronized State read() {
    return state;
  }

  @Override
  public synchronized State schedule(long opensAt, String seed) {
    State s = state;
    if (s.drawn()) {
      return s;
    }
    return state = new State(s.version() + 1, opensAt, s.scheduled() ? s.seed() : seed, false, 0);
  }

  @Override
  public synchronized State cancel() {
    State s = state;
    if (s.drawn() || !s.scheduled()) {
      return s;
    }
    return state = new State(s.version() + 1, 0, null, false, 0);
  }

  @Override
  public synchronized State replace(long opensAt, String seed, boolean drawn, int group) {
    long v = state.version() + 1;
    return state =
        seed == null ? new State(v, 0, null, false, 0) : new State(v, opensAt, seed, drawn, group);
  }

  @Override
  public synchronized int draw(long now, String seed, IntFunction<int[]> order) {
    State s = state;
    if (!s.scheduled() || s.drawn() || now < s.opensAt() || !s.seed().equals(seed)) {
      return -1;
    }
    int n = line.drawPresale(order, now);
    state = new State(s.version() + 1, s.opensAt(), s.seed(), true, n);
    return n;
  }
}
