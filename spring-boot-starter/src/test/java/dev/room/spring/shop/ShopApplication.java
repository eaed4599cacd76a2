package dev.room.spring.shop;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The application under test: a shop whose {@code /park} requests wait until the test says. */
@SpringBootApplication
public class ShopApplication {
  /** Holds {@code /park} requests until {@link #release}; the test decides when they finish. */
  @Component
  public static class Parking {
    private volatile CountDownLatch entered = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);

    /** Blocks (bounded) until the test releases it; a stuck test fails instead of hanging. */
    void park() throws InterruptedException {
      entered.countDown();
      if (!release.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the parked request");
      }
    }

    /** Waits (bounded) until a request is parked. */
    public boolean awaitParked() throws InterruptedException {
      return entered.await(10, TimeUnit.SECONDS);
    }

    public void release() {
      release.countDown();
    }

    /** Ready for the next test. */
    public void reset() {
      release.countDown();
      entered = new CountDownLatch(1);
      release = new CountDownLatch(1);
    }
  }

  @RestController
  static class Shop {
    private final Parking parking;

    Shop(Parking parking) {
      this.parking = parking;
    }

    @GetMapping("/shop")
    String shop() {
      return "the shop";
    }

    @GetMapping("/park")
    String park() throws InterruptedException {
      parking.park();
      return "parked, then served";
    }

    @GetMapping("/static/logo")
    String logo() {
      return "logo";
    }
  }
}
