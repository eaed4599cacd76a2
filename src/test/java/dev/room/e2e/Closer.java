package dev.room.e2e;

/** Closes test resources in order, all of them even when one fails, skipping nulls. */
final class Closer {
  private Closer() {}

  static void closeAll(AutoCloseable... resources) throws Exception {
    Exception first = null;
    for (AutoCloseable r : resources) {
      if (r == null) {
        continue;
      }
      try {
        r.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
