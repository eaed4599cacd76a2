package dev.room.redis;

import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Identities;
import dev.room.spi.LineEntry;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;

/**
 * A {@link RedisLine} exported and restored: the export reads tickets in line order through the
 * scan script, a chunk per call, then the passes; a restore is staged and swapped in whole by
 * {@link LineRestore}, and only onto a line nobody has used yet, with the room's identity salt when
 * the export carried one.
 */
final class LineArchive {
  private final LineScripts scripts;
  private final PassBook passes;

  LineArchive(LineScripts scripts, PassBook passes) {
    this.scripts = scripts;
    this.passes = passes;
  }

  void export(Consumer<LineEntry> tickets, Consumer<long[]> passSink) {
    LineScan.forEach(
        scripts.link(),
        scripts.keys(),
        Long.MAX_VALUE,
        LineScan.CHUNK,
        row -> tickets.accept(row.entry()));
    passes.export(passSink);
  }

  /** The room's identity salt, or null before its first identified arrival. */
  String identitySalt() {
    List<Object> r = scripts.eval(Op.SALT);
    return r.isEmpty() ? null : (String) r.get(0);
  }

  /** A restore that carries the identity salt of the exported room; checked before anything. */
  int restore(
      Iterator<LineEntry> tickets, Iterator<long[]> passList, String identitySalt, long now) {
    if (identitySalt != null && !Identities.validSalt(identitySalt)) {
      throw new IllegalArgumentException("identity salt must be 32 lowercase hex digits");
    }
    return restoreWith(tickets, passList, identitySalt, now);
  }

  int restore(Iterator<LineEntry> tickets, Iterator<long[]> passList, long now) {
    return restoreWith(tickets, passList, null, now);
  }

  /** The commit script checks again that the line is unused, in the step that swaps it in. */
  private int restoreWith(
      Iterator<LineEntry> tickets, Iterator<long[]> passList, String salt, long now) {
    if (scripts.refresh().used()) {
      throw new IllegalStateException("the line has already been used");
    }
    List<Object> r =
        scripts.track(
            new LineRestore(scripts.link(), scripts.keys()).run(tickets, passList, salt, now));
    if (Replies.code(r) < 0) {
      throw new IllegalStateException("the line has already been used");
    }
    return (int) Replies.code(r);
  }
}
