package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** User code that throws (controller, rate and client-key functions) costs no slot and no 500. */
class UserCodeHttpTest {
  private final FakeClock clock = new FakeClock();
  private final ParkingServlet app = new ParkingServlet();
  private WaitingRoom room;
  private JettyHarness jetty;

  /** {@code /async/x}: completes from an async context; {@code /done} ends its session. */
  static final class Async extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      if (req.getRequestURI().equals("/done")) {
        resp.setHeader("Room-Command", "complete");
        resp.getWriter().write("done");
        return;
      }
      AsyncContext ctx = req.startAsync();
      ctx.start(ctx::complete);
    }
  }

  @BeforeEach
  void start() throws Exception {
    room = WaitingRoom.builder().capacity(1).clock(clock).build();
    room.setCapacityController(
        (now, latency, failed, inFlight, capacity) -> {
          throw new IllegalStateException("controller bug");
        });
    jetty = new JettyHarness();
    jetty.filter(new WaitingRoomFilter(room));
    jetty.servlet(new Async(), "/async/*");
    jetty.servlet(new Async(), "/done");
    jetty.servlet(app, "/*");
    jetty.start();
  }

  @AfterEach
  void stop() {
    jetty.close();
    room.close();
  }

  private static void until(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  @Test
  void aThrowingCapacityControllerLosesNoSlotAndServesNo500() throws Exception {
    app.parkRequests(false);
    Browser b = new Browser();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> r = b.get(jetty.url("/item/" + i));
      assertEquals(200, r.statusCode(), "request " + i);
      assertEquals("app:/item/" + i, r.body(), "the slot came back, so nobody queues");
    }
    assertEquals(1, room.line().freeSlots());
    assertEquals(200, b.get(jetty.url("/async/x")).statusCode());
    until(() -> room.line().freeSlots() == 1, "the async request's slot to come back");
    assertEquals(200, b.get(jetty.url("/item/after-async")).statusCode());
    assertEquals(5, room.callbackFailures(), "each throw is counted");
  }

  @Test
  void aThrowingCapacityControllerSkipsNeitherTheSessionCounterNorTheRoomCommand()
      throws Exception {
    room.setAdmissionMode(AdmissionMode.SESSIONS);
    app.parkRequests(false);
    Browser a = new Browser();
    assertEquals(200, a.get(jetty.url("/cart")).statusCode());
    assertEquals(1, room.activeSessions());
    HttpResponse<String> done = a.get(jetty.url("/done"));
    assertEquals(200, done.statusCode());
    assertEquals(0, room.activeSessions(), "Room-Command acted on");
    assertEquals(0, room.inFlight(), "the session's request counter came back down");
    assertEquals(1, room.line().freeSlots());
  }

  @Test
  void aThrowingClientKeyFunctionStillQueuesTheVisitor() throws Exception {
    room.setClientKeyFunction(
        r -> {
          throw new IllegalStateException("key bug");
        });
    CompletableFuture<HttpResponse<String>> holder =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new Browser().get(jetty.url("/hold"));
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    app.awaitParked(1);
    Browser b = new Browser();
    HttpResponse<String> page = b.get(jetty.url("/shop"));
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("aria-live"), "the waiting page");
    assertEquals(1, room.liveQueueDepth());
    assertEquals("", room.queue(1).get(0).clientKey(), "an empty key stands in for the failure");
    assertEquals(1, room.callbackFailures());
    app.releaseOne();
    assertEquals(200, holder.join().statusCode());
  }

  @Test
  void aThrowingBypassPredicateGatesTheRequestInstead() throws Exception {
    room.setCapacityController(null);
    app.parkRequests(false);
    try (JettyHarness other = new JettyHarness()) {
      other.filter(
          new WaitingRoomFilter(room)
              .bypass(
                  r -> {
                    throw new IllegalStateException("predicate bug");
                  }));
      other.servlet(app, "/*");
      other.start();
      HttpResponse<String> r = new Browser().get(other.url("/x"));
      assertEquals(200, r.statusCode());
      assertEquals("app:/x", r.body());
      assertEquals(1, room.line().freeSlots(), "gated: it took the slot and gave it back");
      assertEquals(1, room.callbackFailures());
    }
  }

  @Test
  void aThrowingRateFunctionLeavesThePriceOutOfTheStatus() throws Exception {
    room.setCapacityController(null);
    room.setRateFunction(
        depth -> {
          throw new ArithmeticException("rate bug");
        });
    CompletableFuture<HttpResponse<String>> holder =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new Browser().get(jetty.url("/hold"));
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    app.awaitParked(1);
    Browser b = new Browser();
    b.get(jetty.url("/shop"));
    clock.advanceMillis(1001);
    HttpResponse<String> s = b.get(jetty.url("/queue/status"), "application/json");
    assertEquals(200, s.statusCode());
    assertTrue(s.body().startsWith("{\"ready\":false,\"state\":\"waiting\",\"position\":1,"));
    assertFalse(s.body().contains("skip_cost"), s.body());
    // The waiting page carries the same status on its first frame, so the function failed twice.
    assertEquals(2, room.callbackFailures());
    app.releaseOne();
    holder.join();
  }

  /** Throws {@code t} whatever its type, as Kotlin or {@code @SneakyThrows} code can. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException undeclared(Throwable t) throws T {
    throw (T) t;
  }

  @Test
  void aControllerThrowingAnErrorTurnedTheApplicationsAnswerIntoA500() throws Exception {
    room.setCapacityController(
        (now, latency, failed, inFlight, capacity) -> {
          throw new AssertionError("controller bug");
        });
    app.parkRequests(false);
    HttpResponse<String> r = new Browser().get(jetty.url("/item"));
    assertEquals(200, r.statusCode(), "the application's answer, not a 500");
    until(() -> room.inFlight() == 0, "the slot to come back");
    assertEquals(1, room.callbackFailures());
  }

  @Test
  void aBypassPredicateThrowingAnUndeclaredCheckedExceptionGaveA500() throws Exception {
    room.setCapacityController(null);
    jetty.close();
    jetty = new JettyHarness();
    jetty.filter(
        new WaitingRoomFilter(room)
            .bypass(
                req -> {
                  throw undeclared(new IOException("a predicate written in Kotlin"));
                }));
    jetty.servlet(app, "/*");
    jetty.start();
    app.parkRequests(false);
    HttpResponse<String> r = new Browser().get(jetty.url("/item"));
    assertEquals(200, r.statusCode(), "gated as if the predicate had said no");
    assertEquals(1, room.callbackFailures());
  }
}
