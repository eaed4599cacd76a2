package dev.room;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code state-file} init-param: where a web.xml filter keeps its line across a redeploy.
 *
 * <p>The export holds every waiting client's bearer token, so it is written owner-only, to a
 * temporary file in the same directory, forced to disk and renamed over the old one in one step: a
 * crash mid-write never leaves half a line. A restored file is deleted, so an old line is never
 * restored twice. An unreadable file is moved aside (to {@code <file>.rejected}) and the room
 * starts with an empty line, loudly: a redeploy must not fail over a damaged file, nor restore part
 * of one.
 */
final class StateFile {
  private static final Logger LOG = LoggerFactory.getLogger(StateFile.class);

  private final Path file;
  private final String owner; // "WaitingRoomFilter <name>", for the log

  private StateFile(Path file, String owner) {
    this.file = file;
    this.owner = owner;
  }

  /**
   * Checks the path (absolute, in a directory this process can write) so a bad one stops start-up
   * now rather than losing the line at the next redeploy.
   */
  static StateFile at(String path, String owner) {
    Path p;
    try {
      p = Path.of(path);
    } catch (java.nio.file.InvalidPathException e) {
      throw new IllegalArgumentException("state-file is not a path: " + path, e);
    }
    if (!p.isAbsolute()) {
      throw new IllegalArgumentException(
          "state-file must be an absolute path (a container's working directory varies), was "
              + path);
    }
    Path dir = p.getParent();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalArgumentException("state-file: cannot create directory " + dir, e);
    }
    if (!Files.isWritable(dir)) {
      throw new IllegalArgumentException("state-file: directory " + dir + " is not writable");
    }
    return new StateFile(p, owner);
  }

  Path path() {
    return file;
  }

  /** Restores the saved line into {@code room}, which has not served yet. */
  void restore(WaitingRoom room) {
    if (!Files.exists(file)) {
      LOG.info("{}: no saved line at {}; starting with an empty line", owner, file);
      return;
    }
    ImportStats stats;
    try (InputStream in = Files.newInputStream(file)) {
      stats = room.importFrom(in);
    } catch (IOException | RuntimeException e) {
      reject(e);
      return;
    }
    LOG.info(
        "{}: restored the line from {}: {} clients back in line, {} stale dropped, {} VIP passes"
            + " kept, {} expired",
        owner,
        file,
        stats.restored(),
        stats.droppedStale(),
        stats.passesRestored(),
        stats.passesExpired());
    try {
      Files.delete(file);
    } catch (IOException e) {
      LOG.warn("{}: could not delete {} after restoring it: {}", owner, file, e.toString());
    }
  }

  private void reject(Exception e) {
    Path rejected = file.resolveSibling(file.getFileName() + ".rejected");
    String where;
    try {
      Files.move(file, rejected, StandardCopyOption.REPLACE_EXISTING);
      where = "moved aside to " + rejected;
    } catch (IOException moveFailed) {
      where = "could not move it aside (" + moveFailed + ")";
    }
    LOG.error(
        "{}: the saved line {} is unreadable ({}); {}. Starting with an EMPTY line: the visitors"
            + " who were waiting lost their places",
        owner,
        file,
        describe(e),
        where);
  }

  /**
   * What is wrong with the file, without its content: a JSON parser's message quotes the text it
   * choked on, which may be part of a token, so only its position is told.
   */
  static String describe(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof com.fasterxml.jackson.core.JsonProcessingException j) {
        var at = j.getLocation();
        return at == null
            ? "malformed JSON"
            : "malformed JSON at line " + at.getLineNr() + ", column " + at.getColumnNr();
      }
    }
    return e.getMessage();
  }

  /** Saves {@code room}'s line; called once the filter no longer serves. */
  void save(WaitingRoom room) {
    Path tmp = null;
    try {
      tmp =
          Files.createTempFile(
              file.getParent(), "." + file.getFileName() + "-", ".tmp", ownerOnly());
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
          OutputStream out = Channels.newOutputStream(ch)) {
        room.exportTo(out);
        out.flush();
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      tmp = null;
      LOG.info("{}: saved the line ({} clients) to {}", owner, room.liveQueueDepth(), file);
    } catch (IOException | RuntimeException e) {
      LOG.error("{}: could not save the line to {}: {}", owner, file, e.toString());
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException e) {
          LOG.warn("{}: could not delete {}: {}", owner, tmp, e.toString());
        }
      }
    }
  }

  private static FileAttribute<?>[] ownerOnly() {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[] {
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
      };
    }
    return new FileAttribute<?>[0];
  }
}
