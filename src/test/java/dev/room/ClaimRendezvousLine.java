package dev.room;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory line whose {@code claim} holds its first two callers after {@link #arm} until both
 * are inside (or half a second passed), so two requests that both reach the line's claim reach it
 * together. Requests serialised before the line never meet there, and only pay the half second.
 */
final class ClaimRendezvousLine {
  private final InMemoryLine line;
  private volatile CountDownLatch meet = new CountDownLatch(0);
  final Line proxy;

  ClaimRendezvousLine(int capacity) {
    line = new InMemoryLine(capacity);
    proxy =
        (Line)
            Proxy.newProxyInstance(
                Line.class.getClassLoader(),
                new Class<?>[] {Line.class},
                (p, method, args) -> {
                  if (method.getName().equals("claim")) {
                    CountDownLatch m = meet;
                    m.countDown();
                    m.await(500, TimeUnit.MILLISECONDS);
                  }
                  try {
                    return method.invoke(line, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
  }

  /** The next two claims meet. */
  void arm() {
    meet = new CountDownLatch(2);
  }
}
