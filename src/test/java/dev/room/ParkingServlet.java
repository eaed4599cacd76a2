package dev.room;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application servlet that parks each request until the test releases it, and counts how many
 * run at once (independently of the room).
 */
public final class ParkingServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient BlockingQueue<CountDownLatch> parked = new LinkedBlockingQueue<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final AtomicInteger served = new AtomicInteger();
  private volatile boolean park = true;

  public void parkRequests(boolean park) {
    this.park = park;
  }

  /** Waits until a request is parked, then lets it finish. */
  public void releaseOne() throws InterruptedException {
    CountDownLatch l = parked.poll(10, TimeUnit.SECONDS);
    if (l == null) {
      throw new AssertionError("no parked request to release");
    }
    l.countDown();
  }

  /** Waits until {@code n} requests are parked. */
  public void awaitParked(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (parked.size() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("expected " + n + " parked requests, have " + parked.size());
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  public int maxRunning() {
    return maxRunning.get();
  }

  public int served() {
    return served.get();
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    int now = running.incrementAndGet();
    maxRunning.accumulateAndGet(now, Math::max);
    try {
      if (park) {
        CountDownLatch l = new CountDownLatch(1);
        parked.add(l);
        try {
          if (!l.await(30, TimeUnit.SECONDS)) {
            resp.sendError(500, "never released");
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      served.incrementAndGet();
      resp.setContentType("text/plain");
      resp.getWriter().write("app:" + req.getRequestURI());
    } finally {
      running.decrementAndGet();
    }
  }
}
