package dev.room;

import dev.room.engine.PresaleDraw;
import dev.room.spi.PresaleStore;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sale's pre-sale lottery: its schedule, seed and draw, kept in the line's {@link PresaleStore}
 * (the fleet's when the line is shared, else a {@link dev.room.engine.LocalPresaleStore}). Set on
 * any instance and adopted by the others at their next sync; drawn once for the fleet by the first
 * room whose request path reaches the opening (the store draws and records it in one step; the
 * others adopt the result).
 *
 * <p>Implementation notes. Every method but the getters is called under the {@link Sale}'s monitor;
 * the request path reads the volatile pre-sale only.
 */
final class Lottery {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingRoom.class);

  private final PresaleStore presales;
  private final boolean shared; // the line is shared: its pre-sale is the fleet's
  private final EventSink events;
  private final Supplier<String> displayName;
  private volatile Presale presale;
  private long seen; // the pre-sale's version this room is in step with

  Lottery(PresaleStore presales, boolean shared, EventSink events, Supplier<String> displayName) {
    this.presales = presales;
    this.shared = shared;
    this.events = events;
    this.displayName = displayName;
  }

  Presale presale() {
    return presale;
  }

  /** Whether the pre-sale's arrivals still wait for their draw. */
  boolean pending() {
    Presale p = presale;
    return p != null && !p.drawn();
  }

  String seedHash() {
    Presale p = presale;
    return p == null ? "" : p.seedHash();
  }

  Optional<String> seed() {
    Presale p = presale;
    return p != null && p.drawn() ? Optional.of(PresaleDraw.hex(p.seed())) : Optional.empty();
  }

  Optional<Instant> opensAt() {
    Presale p = presale;
    return p == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(p.opensAt()));
  }

  /** One read of the store. */
  PresaleStore.State read() {
    return presales.read();
  }

  /** Whether {@code s} holds a change this room has not adopted. */
  boolean changed(PresaleStore.State s) {
    return s.version() != seen;
  }

  /**
   * Schedules, moves or (null) cancels the pre-sale for the fleet; returns whether the pre-sale
   * changed, so the line's allowance must follow. While the room is being built ({@code building})
   * a pre-sale the fleet already has stays as it is: a restarting instance joins it.
   */
  boolean schedule(Instant opensAt, long now, boolean building) {
    Presale p = presale;
    if (building && p != null && shared) {
      return false;
    }
    if (opensAt == null) {
      if (p != null && p.drawn()) {
        throw new IllegalStateException("the pre-sale draw already took place");
      }
      if (adopt(presales.cancel()) && presale != null) {
        throw new IllegalStateException("the pre-sale draw already took place");
      }
      presale = null;
      return true;
    }
    long at = opensAt.toEpochMilli();
    if (p != null && p.opensAt() == at) {
      return false; // idempotent: a restart that scheduled again after importing its line
    }
    if (p != null && p.drawn()) {
      throw new IllegalStateException("the pre-sale draw already took place");
    }
    if (at <= now) {
      throw new IllegalArgumentException("opensAt must be in the future, was " + opensAt);
    }
    byte[] seed = p == null ? PresaleDraw.newSeed() : p.seed();
    PresaleStore.State s = presales.schedule(at, PresaleDraw.hex(seed));
    adopt(s);
    if (s.drawn()) {
      throw new IllegalStateException("the pre-sale draw already took place");
    }
    if (p == null || !p.seedHash().equals(presale.seedHash())) {
      events.journal().note("presale", presale.seedHash());
    }
    return true;
  }

  /** Makes {@code p} (an imported line's pre-sale, or null) this room's and the fleet's. */
  void restore(Presale p) {
    seen = replace(p).version();
    presale = p;
  }

  /**
   * Adopts the fleet's pre-sale, if it changed. Returns whether this room's pre-sale changed. A
   * version gone back means the store lost it (Redis lost the room): this room's pre-sale is the
   * fleet's again.
   */
  boolean adopt(PresaleStore.State s) {
    if (s.version() == seen) {
      return false;
    }
    Presale p = presale;
    if (s.version() < seen) {
      seen = replace(p).version();
      return false;
    }
    seen = s.version();
    byte[] seed = s.scheduled() ? PresaleDraw.unhex(s.seed()) : null;
    Presale next = seed == null ? null : new Presale(s.opensAt(), seed, s.drawn(), s.group());
    if (Objects.equals(next, p)) {
      return false;
    }
    presale = next;
    if (next != null && !next.drawn() && (p == null || !p.seedHash().equals(next.seedHash()))) {
      events.journal().note("presale", next.seedHash()); // the commitment, in this room's log too
    }
    if (next != null && next.drawn() && (p == null || !p.drawn())) {
      LOG.info(
          "room {}: pre-sale drawn on another instance: {} arrivals placed at random; seed {}"
              + " (SHA-256 {})",
          displayName.get(),
          next.group(),
          PresaleDraw.hex(next.seed()),
          next.seedHash());
    }
    return true;
  }

  /**
   * The draw of {@code p}, once for the fleet: the store draws only for the first room to ask at or
   * after the opening. Returns how many arrivals this room placed, or a negative number when
   * another room drew (the caller then adopts the fleet's result).
   */
  int draw(Presale p, long now) {
    byte[] seed = p.seed();
    String hex = PresaleDraw.hex(seed);
    boolean[] revealed = {false};
    int n =
        presales.draw(
            now,
            hex,
            size -> {
              if (!revealed[0]) {
                revealed[0] = true;
                events.journal().note("reveal", hex);
              }
              return PresaleDraw.order(seed, size);
            });
    if (n >= 0) {
      presale = p.afterDraw(n);
    }
    return n;
  }

  private PresaleStore.State replace(Presale p) {
    return p == null
        ? presales.replace(0, null, false, 0)
        : presales.replace(p.opensAt(), PresaleDraw.hex(p.seed()), p.drawn(), p.group());
  }
}
