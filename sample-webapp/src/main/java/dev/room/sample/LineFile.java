package dev.room.sample;

import dev.room.ImportFormatException;
import dev.room.ImportStats;
import dev.room.WaitingRoom;
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
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the line waits while the server restarts.
 *
 * <p>The export holds every waiting client's bearer token, so it is written owner-only, to a
 * temporary file in the same directory, forced to disk and then moved over the old one in one
 * atomic rename: a crash mid-write never leaves half a line behind. The file is deleted once
 * restored, so an old line is never restored twice.
 */
final class LineFile {
  private static final Logger LOG = LoggerFactory.getLogger(LineFile.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private final Path file;
  private final Duration maxAge;

  /** A line file; a saved line older than {@code maxAge} is not restored ({@code ZERO}: any). */
  LineFile(Path file, Duration maxAge) {
    this.file = file.toAbsolutePath();
    this.maxAge = maxAge;
  }

  Path path() {
    return file;
  }

  /** Restores the saved line into {@code room}, which must not have served yet. */
  void restore(WaitingRoom room) throws IOException {
    if (!Files.exists(file)) {
      LOG.info("No saved line at {}: starting with an empty one", file);
      return;
    }
    // A line saved long ago is from a past session (yesterday's run of the sample, say): its
    // visitors are gone, and restoring them would make a fresh tab wait behind nobody. A restart
    // for a deploy takes seconds; its line is restored.
    Duration age = Duration.between(Files.getLastModifiedTime(file).toInstant(), Instant.now());
    if (!maxAge.isZero() && age.compareTo(maxAge) > 0) {
      Files.delete(file);
      LOG.info(
          "Saved line at {} is {} s old (more than --restore-max-age {} s): from a past session,"
              + " not restored; deleted. Starting with an empty line",
          file,
          age.toSeconds(),
          maxAge.toSeconds());
      return;
    }
    try (InputStream in = Files.newInputStream(file)) {
      ImportStats stats = room.importFrom(in);
      LOG.info(
          "Restored the line from {}: {} clients back in line, {} stale dropped,"
              + " {} VIP passes kept, {} expired",
          file,
          stats.restored(),
          stats.droppedStale(),
          stats.passesRestored(),
          stats.passesExpired());
    } catch (ImportFormatException e) {
      Path rejected = file.resolveSibling(file.getFileName() + ".rejected");
      Files.move(file, rejected, StandardCopyOption.REPLACE_EXISTING);
      LOG.warn(
          "Saved line {} is unreadable ({}); moved aside to {}", file, e.getMessage(), rejected);
      return;
    }
    Files.delete(file);
  }

  /** Saves {@code room}'s line; call it once the server has stopped serving. */
  void save(WaitingRoom room) {
    Path tmp = null;
    try {
      Path dir = file.getParent();
      Files.createDirectories(dir);
      tmp = Files.createTempFile(dir, "." + file.getFileName() + "-", ".tmp", ownerOnly());
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
      LOG.info("Saved the line ({} clients) to {}", room.liveQueueDepth(), file);
    } catch (IOException | RuntimeException e) {
      LOG.error("Could not save the line to {}", file, e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException e) {
          LOG.warn("Could not delete {}", tmp, e);
        }
      }
    }
  }

  private static FileAttribute<?>[] ownerOnly() {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)};
    }
    return new FileAttribute<?>[0];
  }
}
