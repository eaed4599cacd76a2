package dev.room.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The headroom rule: capacity leaves max(10, a tenth) of the worker threads free. */
class WorkerThreadsTest {
  private static WorkerThreads tomcat(int threads) {
    return new WorkerThreads("Tomcat", "server.tomcat.threads.max", threads);
  }

  @Test
  void tomcatsDefaultTwoHundredThreadsServeAtMost180() {
    assertThat(tomcat(200).maxCapacity()).isEqualTo(180);
    assertThat(tomcat(200).fits(180)).isTrue();
    assertThat(tomcat(200).fits(181)).isFalse();
    assertThat(tomcat(20).maxCapacity()).isEqualTo(10);
    assertThat(tomcat(10).maxCapacity()).isZero();
  }

  @Test
  void threadsForIsTheFewestThreadsThatFitTheCapacity() {
    for (int c = 1; c <= 5000; c++) {
      int t = WorkerThreads.threadsFor(c);
      assertThat(tomcat(t).fits(c)).as("capacity %d on %d threads", c, t).isTrue();
      assertThat(tomcat(t - 1).fits(c)).as("capacity %d on %d threads", c, t - 1).isFalse();
    }
  }

  @Test
  void theMessageSaysWhichPropertyToChangeAndToWhat() {
    assertThatThrownBy(() -> tomcat(200).check(500, "room.capacity"))
        .isInstanceOf(RoomConfigurationException.class)
        .hasMessageStartingWith(
            "room.capacity=500 does not fit Tomcat's 200 worker threads"
                + " (server.tomcat.threads.max=200)")
        .satisfies(
            e ->
                assertThat(((RoomConfigurationException) e).action())
                    .startsWith(
                        "Set room.capacity to at most 180, or raise server.tomcat.threads.max to"
                            + " at least 555."));
    // With too few threads for any capacity, the only way out is more threads.
    assertThat(tomcat(8).action(1, "room.capacity"))
        .startsWith("Raise server.tomcat.threads.max to at least 11.");
  }

  @Test
  void anUnknownServerLimitsNothing() {
    assertThat(WorkerThreads.UNLIMITED.fits(Integer.MAX_VALUE)).isTrue();
  }
}
