package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.LineEntry;
import dev.room.spi.Tokens;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A restore on a Redis line, all or nothing: tickets and passes are written in chunks to staging
 * keys of their own (in the room's hash tag, expiring after an hour should the importer die), then
 * one script swaps them in unless the line was used meanwhile. Until then the live line is
 * untouched, so a restore that fails halfway leaves it exactly as it was.
 */
final class LineRestore {
  private static final int CHUNK = 256;
  private static final int FIELDS = 18;
  private static final long MAX_KEY = (1L << 53) - 1;

  /** The band of clients restored as ready, above every rank's (lib/keys.lua's CALLED). */
  private static final long CALLED = Integer.MAX_VALUE;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final RedisLink link;
  private final String[] keys;
  private final List<String> args = new ArrayList<>();
  private long previousBand;
  private long previousPlace;
  private long previousOrder;
  private boolean first = true;
  private long called;
  private long maxKey;

  LineRestore(RedisLink link, RoomKeys roomKeys) {
    this.link = link;
    this.keys = roomKeys.withStaging(Long.toHexString(RANDOM.nextLong()));
  }

  /** Stages and commits; returns the reply of the commit script. */
  List<Object> run(
      Iterator<LineEntry> tickets, Iterator<long[]> passes, String identitySalt, long now) {
    try {
      stageTickets(tickets, now);
      stagePasses(passes);
      return link.eval(
          Op.COMMIT,
          keys,
          Long.toString(now),
          Long.toString(maxKey),
          identitySalt == null ? "" : identitySalt);
    } catch (RuntimeException e) {
      try {
        link.eval(Op.ABORT, keys);
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed); // the staging keys expire by themselves
      }
      throw e;
    }
  }

  private void stageTickets(Iterator<LineEntry> tickets, long now) {
    args.clear();
    args.add(Long.toString(now));
    while (tickets.hasNext()) {
      LineEntry e = tickets.next();
      long band = e.band();
      long place = e.place();
      long order = e.order();
      if (e.ready()) { // called before the restart: first in line, in the file's order
        band = CALLED;
        place = ++called;
        order = place;
      }
      // Every later place and tie order comes from the counter: it passes every key restored.
      maxKey =
          Math.max(
              Math.max(maxKey, e.number()),
              Math.max(Math.max(place, order), Math.max(e.place(), e.order())));
      checkOrder(band, place, order);
      args.add(Tokens.format(e.hi(), e.lo()));
      args.add(Long.toString(band));
      args.add(Long.toString(place));
      args.add(Long.toString(order));
      args.add(Integer.toString(e.rank()));
      args.add(Long.toString(e.issuedAt()));
      args.add(Long.toString(e.lastActivity()));
      boolean polled = e.lastPoll() != Long.MIN_VALUE;
      args.add(Long.toString(polled ? e.lastPoll() : 0));
      args.add(polled ? "1" : "0");
      args.add(e.seen() ? "1" : "0");
      args.add(e.hasPass() ? "1" : "0");
      args.add(e.clientKey() == null ? "" : e.clientKey());
      args.add(!e.ready() && e.promoted() ? "1" : "0");
      args.add(Long.toString(Math.max(0, Math.min(MAX_KEY, e.number()))));
      args.add(Integer.toString(e.band())); // the key it was exported with, written back
      args.add(Long.toString(e.place()));
      args.add(Long.toString(e.order()));
      args.add(e.identity() == null ? "" : e.identity());
      if (args.size() > CHUNK * FIELDS) {
        flushTickets(now);
      }
    }
    flushTickets(now);
  }

  private void flushTickets(long now) {
    if (args.size() > 1) {
      List<Object> r = link.eval(Op.STAGE, keys, args.toArray(new String[0]));
      if ((Long) r.get(0) != 0) {
        throw new IllegalArgumentException("duplicate token");
      }
    }
    args.clear();
    args.add(Long.toString(now));
  }

  private void stagePasses(Iterator<long[]> passes) {
    args.clear();
    while (passes.hasNext()) {
      long[] p = passes.next();
      args.add(Tokens.format(p[0], p[1]));
      args.add(Long.toString(p[2]));
      if (args.size() >= CHUNK * 2) {
        link.eval(Op.STAGEPASSES, keys, args.toArray(new String[0]));
        args.clear();
      }
    }
    if (!args.isEmpty()) {
      link.eval(Op.STAGEPASSES, keys, args.toArray(new String[0]));
    }
  }

  /** Line order: higher band first, then lower place, then lower order. */
  private void checkOrder(long band, long place, long order) {
    if (!first) {
      int c = band != previousBand ? (band < previousBand ? 1 : -1) : 0;
      if (c == 0) {
        c = place != previousPlace ? Long.compare(place, previousPlace) : 0;
      }
      if (c == 0) {
        c = Long.compare(order, previousOrder);
      }
      if (c <= 0) {
        throw new IllegalArgumentException("tickets are not in line order");
      }
    }
    first = false;
    previousBand = band;
    previousPlace = place;
    previousOrder = order;
  }
}
