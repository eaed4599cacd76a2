package dev.room.e2e;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import dev.room.spi.LineUnavailableException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An in-memory line whose storage can be made unreachable, as a shared line's is when Redis goes
 * away: while {@link #down} is set every call throws {@link LineUnavailableException}.
 */
final class UnreachableLine {
  final AtomicBoolean down = new AtomicBoolean();
  final Line line;

  UnreachableLine(int capacity) {
    InMemoryLine inner = new InMemoryLine(capacity);
    line =
        (Line)
            Proxy.newProxyInstance(
                Line.class.getClassLoader(),
                new Class<?>[] {Line.class},
                (proxy, method, args) -> {
                  if (down.get() && !method.getName().equals("close")) {
                    throw new LineUnavailableException("the line's store is unreachable", null);
                  }
                  try {
                    return method.invoke(inner, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
  }
}
