package dev.room;

import dev.room.engine.PresaleDraw;

/**
 * A scheduled pre-sale lottery: when it opens, its seed and whether the draw took place (and for
 * how many arrivals). Immutable; the room swaps one for the next.
 */
record Presale(long opensAt, byte[] seed, boolean drawn, int group) {

  static Presale schedule(long opensAt) {
    return new Presale(opensAt, PresaleDraw.newSeed(), false, 0);
  }

  Presale reschedule(long at) {
    return new Presale(at, seed, false, 0);
  }

  Presale afterDraw(int n) {
    return new Presale(opensAt, seed, true, n);
  }

  /** The commitment published before the draw: SHA-256 of the seed, lower-case hex. */
  String seedHash() {
    return PresaleDraw.sha256Hex(seed);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Presale p
        && p.opensAt == opensAt
        && java.util.Arrays.equals(p.seed, seed)
        && p.drawn == drawn
        && p.group == group;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(opensAt) * 31 + java.util.Arrays.hashCode(seed);
  }

  /** Never prints the seed: before the draw it is the lottery's secret. */
  @Override
  public String toString() {
    return "Presale[opensAt=" + opensAt + ", drawn=" + drawn + ", group=" + group + "]";
  }
}
