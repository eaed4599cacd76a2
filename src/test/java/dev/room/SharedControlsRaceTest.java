package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.engine.InMemoryLine;
import dev.room.engine.LocalControls;
import dev.room.spi.Controls;
import dev.room.spi.Line;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The room's once-a-second read of shared sale controls, raced by a setter on the same room. */
class SharedControlsRaceTest {

  /** Controls whose reads on one thread stop after reading, until let go. */
  private static final class StallingControls implements Controls {
    final Controls inner = new LocalControls();
    final CountDownLatch read = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);
    volatile Thread stalled;

    @Override
    public Settings read() {
      Settings s = inner.read();
      if (Thread.currentThread() == stalled) {
        stalled = null;
        read.countDown();
        try {
          assertTrue(go.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return s;
    }

    @Override
    public long write(String control, String value) {
      return inner.write(control, value);
    }
  }

  /** A line that is {@code inner} but offers {@code controls}, as a shared line does. */
  private static Line withControls(Line inner, Controls controls) {
    return (Line)
        Proxy.newProxyInstance(
            Line.class.getClassLoader(),
            new Class<?>[] {Line.class},
            (proxy, method, args) -> {
              if (method.getName().equals("controls") && method.getParameterCount() == 0) {
                return controls;
              }
              try {
                return method.invoke(inner, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * Regression (second reading of issue 15): the periodic read of the controls took the monitor
   * only after reading, so a pause set on this room between the read and the adoption was undone by
   * the older read: the room went back to OPEN and lifted the line's hold.
   */
  @Test
  void aPauseSetWhileTheRoomReadsTheControlsIsUndoneByTheOlderRead() throws Exception {
    FakeClock clock = new FakeClock();
    StallingControls controls = new StallingControls();
    Line line = withControls(new InMemoryLine(2), controls);
    try (WaitingRoom room = WaitingRoom.builder().capacity(2).line(line).clock(clock).build()) {
      room.setMode(RoomMode.QUEUE_ALL);
      room.setMode(RoomMode.OPEN); // the controls now say OPEN
      clock.advance(Duration.ofSeconds(2)); // the next pass reads them
      Thread reader =
          new Thread(
              () -> {
                controls.stalled = Thread.currentThread();
                room.evictExpired();
              });
      reader.start();
      assertTrue(controls.read.await(10, TimeUnit.SECONDS), "the pass read the controls");
      room.setMode(RoomMode.PAUSED);
      controls.go.countDown();
      reader.join(10_000);
      assertFalse(reader.isAlive());
      assertEquals(RoomMode.PAUSED, room.mode(), "the pause set last stands");
      assertEquals(0, line.allowance(), "and holds the line");
    }
  }
}
