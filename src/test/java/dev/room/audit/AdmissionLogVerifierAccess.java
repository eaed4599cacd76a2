package dev.room.audit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Lets tests in other packages run the verifier without exiting the JVM. */
public final class AdmissionLogVerifierAccess {
  private AdmissionLogVerifierAccess() {}

  /** The verifier's printed verdict on {@code file}. */
  public static String verify(Path file, String... more) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    String[] args = new String[more.length + 1];
    args[0] = file.toString();
    System.arraycopy(more, 0, args, 1, more.length);
    AdmissionLogVerifier.run(new PrintStream(b, true, StandardCharsets.UTF_8), args);
    return b.toString(StandardCharsets.UTF_8).trim();
  }
}
