package dev.room.audit;

import dev.room.engine.PresaleDraw;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Checks an {@link AdmissionLog}: its chain, and that its admissions followed the recorded policy.
 *
 * <p>Usage: {@code java -jar room.jar verify log.jsonl [--head HASH] [--open]}, or {@code java -cp
 * room.jar dev.room.audit.AdmissionLogVerifier log.jsonl …}. Exit status 0 when the log verifies, 1
 * when it does not (the first bad entry is printed with its line number and why), 2 when it cannot
 * be read. {@code --head} also requires an entry with that hash (one published during the sale);
 * {@code --open} accepts a log without its final {@code close} entry (still being written), which
 * otherwise fails, since a log cut short would verify as far as it goes.
 *
 * <p>The chain: every line parses, its {@code hash} is the SHA-256 of its bytes without the hash
 * member, its {@code seq} follows the one before, and its {@code prev} is the hash before it (64
 * zeros for the first). The policy, replayed on a model of the line from {@code exact} logs: every
 * ticket arrives at the back in arrival order (or, with a pass, tied into the front group); an
 * {@code offer} (a slot handed over) goes to the first present waiter in key order (band, place,
 * order), never while the allowance is 0 (a pause); a metered {@code enter} passes nobody; a
 * pre-sale {@code reveal} matches the SHA-256 committed before it, the {@code draw}'s group is
 * every unmoved waiter in line order, and its moves are exactly the Fisher–Yates order {@link
 * PresaleDraw} recomputes from the seed. Promotions, ranks, removals, expiries, lapsed offers and
 * presence are the recorded events that legitimately change who is next; they are applied, and
 * anyone reading the log sees each. An {@code observed} log (a line that cannot journal, such as
 * Redis) is checked for its chain and its pre-sale commitment only.
 */
public final class AdmissionLogVerifier {
  private AdmissionLogVerifier() {}

  /** Verifies the log named in {@code args} and exits with 0, 1 or 2 (see the class doc). */
  public static void main(String... args) {
    int status = run(System.out, args);
    if (status != 0) {
      System.exit(status);
    }
  }

  /** {@link #main} without the exit: returns the status, writes the verdict to {@code out}. */
  static int run(PrintStream out, String... args) {
    Path file = null;
    String head = null;
    boolean open = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("verify") && i == 0) {
        continue;
      } else if (a.equals("--head") && i + 1 < args.length) {
        head = args[++i];
      } else if (a.equals("--open")) {
        open = true;
      } else if (file == null && !a.startsWith("--")) {
        file = Path.of(a);
      } else {
        file = null;
        break;
      }
    }
    if (file == null) {
      out.println("usage: verify LOG.jsonl [--head HASH] [--open]");
      return 2;
    }
    List<String> lines;
    try (Stream<String> s = Files.lines(file, StandardCharsets.US_ASCII)) {
      lines = s.toList();
    } catch (IOException | UncheckedIOException e) {
      out.println("cannot read " + file + ": " + e.getMessage());
      return 2;
    }
    Replay r = new Replay();
    String failure = r.check(lines, head, open);
    if (failure != null) {
      out.println("NOT VERIFIED: " + failure);
      return 1;
    }
    out.println(
        "verified: "
            + lines.size()
            + " entries, "
            + r.offers()
            + " offers, "
            + r.admits()
            + " admissions, head "
            + r.head());
    return 0;
  }
}
