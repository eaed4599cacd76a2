package dev.room.redis;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application behind every instance: one object shared by all of them, so it counts the
 * requests running across the whole fleet independently of the room, records who got in in what
 * order, and parks each request until the test lets it finish.
 */
final class SharedApp {
  /** One parked request: the instance it runs on and the latch that finishes it. */
  record Parked(int instance, String who, CountDownLatch done) {}

  final AtomicInteger running = new AtomicInteger();
  final AtomicInteger maxRunning = new AtomicInteger();
  final List<String> admitted = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Parked> parked = new LinkedBlockingQueue<>();

  /** The servlet for instance {@code n}. */
  HttpServlet servlet(int n) {
    return new HttpServlet() {
      private static final long serialVersionUID = 1L;

      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        int now = running.incrementAndGet();
        maxRunning.accumulateAndGet(now, Math::max);
        String who = String.valueOf(req.getParameter("who"));
        admitted.add(who);
        try {
          CountDownLatch done = new CountDownLatch(1);
          parked.add(new Parked(n, who, done));
          if (!done.await(60, TimeUnit.SECONDS)) {
            res.sendError(500, "never released");
            return;
          }
          res.setContentType("text/plain");
          res.getWriter().write("app:" + who);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          running.decrementAndGet();
        }
      }
    };
  }

  /** Waits (bounded) until {@code n} requests are parked. */
  void awaitParked(int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (parked.size() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("expected " + n + " parked requests, have " + parked.size());
      }
      Thread.onSpinWait();
    }
  }

  /** Lets the longest-parked request finish; returns it, or null when none came within 20 s. */
  Parked releaseOne() throws InterruptedException {
    Parked p = parked.poll(20, TimeUnit.SECONDS);
    if (p != null) {
      p.done().countDown();
    }
    return p;
  }

  /** Lets every request parked on instance {@code n} finish. */
  void releaseAllOn(int n) {
    parked.removeIf(
        p -> {
          if (p.instance() == n) {
            p.done().countDown();
            return true;
          }
          return false;
        });
  }

  int parkedCount() {
    return parked.size();
  }
}
