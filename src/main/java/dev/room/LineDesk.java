package dev.room;

import dev.room.spi.Line;
import dev.room.spi.Move;
import dev.room.spi.Tokens;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/** Line management and pricing: look-ups, removals, moves, ranks, quotes and VIP passes. */
final class LineDesk {
  private final InstantSource clock;
  private final Line line;
  private final RoomEvents events;
  private final RoomSettings settings;
  private final WaitingRoom.Web web;

  LineDesk(
      InstantSource clock,
      Line line,
      RoomEvents events,
      RoomSettings settings,
      WaitingRoom.Web web) {
    this.clock = clock;
    this.line = line;
    this.events = events;
    this.settings = settings;
    this.web = web;
  }

  List<TicketInfo> queue(int limit) {
    return line.queue(limit);
  }

  Optional<TicketInfo> ticket(String token) {
    if (!Tokens.valid(token)) {
      return Optional.empty();
    }
    return Optional.ofNullable(line.ticket(Tokens.hi(token), Tokens.lo(token)));
  }

  boolean hasValidPass(String passToken) {
    return Tokens.valid(passToken)
        && line.passExpiry(Tokens.hi(passToken), Tokens.lo(passToken)) > clock.millis();
  }

  boolean removeToken(String token) {
    if (!Tokens.valid(token)) {
      return false;
    }
    TicketInfo before =
        events.listening(Event.REMOVE) ? line.ticket(Tokens.hi(token), Tokens.lo(token)) : null;
    if (!line.remove(Tokens.hi(token), Tokens.lo(token), clock.millis())) {
      return false;
    }
    events.fireFor(Event.REMOVE, token, before);
    events.drained();
    return true;
  }

  int removeTokensIf(Predicate<TicketInfo> match) {
    Objects.requireNonNull(match, "match");
    int n = line.removeIf(match, clock.millis());
    if (n > 0) {
      events.fire(Event.REMOVE, "", "", false);
      events.drained();
    }
    return n;
  }

  void adminPromote(String token, long targetPosition) {
    Checks.target(targetPosition);
    Move m = line.promote(hi(token), lo(token), targetPosition);
    if (m.to() < m.from()) {
      events.fireFor(Event.PROMOTE, token, null);
    }
  }

  boolean setTicketRank(String token, int rank) {
    if (rank < 0) {
      throw new IllegalArgumentException("rank must not be negative, was " + rank);
    }
    boolean moved = line.rank(hi(token), lo(token), rank);
    if (moved) {
      events.fireFor(Event.RANK, token, null);
    }
    return moved;
  }

  BigDecimal quoteCost(String token, long targetPosition) {
    RateFunction rate = requireRate();
    Checks.target(targetPosition);
    Move m = line.quote(hi(token), lo(token), targetPosition);
    return cost(rate, m);
  }

  PromoteResult promoteToken(String token, long targetPosition) {
    RateFunction rate = requireRate();
    Checks.target(targetPosition);
    Move m = line.promote(hi(token), lo(token), targetPosition);
    if (m.to() >= m.from()) {
      return new PromoteResult(BigDecimal.ZERO, m.from(), m.from(), "");
    }
    events.fireFor(Event.PROMOTE, token, null);
    return new PromoteResult(cost(rate, m), m.from(), m.to(), grantPass());
  }

  String grantPass() {
    Duration d = settings.passDuration;
    if (d.isZero()) {
      return "";
    }
    long[] t = Tokens.generate();
    line.grantPass(t[0], t[1], clock.millis() + d.toMillis());
    return Tokens.format(t[0], t[1]);
  }

  private RateFunction requireRate() {
    RateFunction rate = web.rateFunction;
    if (rate == null) {
      throw new IllegalStateException("paid promotion needs a rate function (setRateFunction)");
    }
    return rate;
  }

  static BigDecimal cost(RateFunction rate, Move m) {
    long distance = m.from() - m.to();
    if (distance <= 0) {
      return BigDecimal.ZERO;
    }
    BigDecimal perPosition = Objects.requireNonNull(rate.ratePerPosition(m.depth()), "rate");
    return perPosition.multiply(BigDecimal.valueOf(distance));
  }

  private static long hi(String token) {
    if (!Tokens.valid(token)) {
      throw new TokenNotFoundException();
    }
    return Tokens.hi(token);
  }

  private static long lo(String token) {
    return Tokens.lo(token);
  }
}
