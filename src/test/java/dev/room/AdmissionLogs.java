package dev.room;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.audit.AdmissionLog;
import dev.room.audit.AdmissionLogVerifierAccess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Attaches an admission log to a test's room and checks it verifies once the room is closed. */
final class AdmissionLogs {
  private AdmissionLogs() {}

  static Path attach(WaitingRoom room) {
    try {
      Path f = Files.createTempFile("admissions", ".jsonl");
      room.setAdmissionLog(AdmissionLog.toFile(f));
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Asserts the closed room's log at {@code f} verifies, then deletes it; null: nothing. */
  static void verify(Path f) {
    if (f == null) {
      return;
    }
    try {
      String verdict = AdmissionLogVerifierAccess.verify(f);
      assertTrue(verdict.startsWith("verified"), "admission log " + f + ": " + verdict);
      Files.delete(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
