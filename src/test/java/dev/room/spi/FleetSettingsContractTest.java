package dev.room.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fleet settings' contract, run on every implementation: in this process and in Redis. Two
 * handles on one store stand for two instances on one line.
 */
public abstract class FleetSettingsContractTest {
  /** A fresh, empty store. */
  protected abstract FleetSettings newStore();

  /**
   * A second handle on the store {@code s} (another instance); {@code s} itself if there is one.
   */
  protected abstract FleetSettings sameStore(FleetSettings s);

  @Test
  void nothingIsRecordedAtFirst() {
    FleetSettings.Recorded r = newStore().read(List.of("tokenTtl", "name"));
    assertEquals(0, r.version());
    assertEquals(Map.of(), r.values());
  }

  @Test
  void theFirstToAgreeRecordsAndLaterOnesReadTheFleetsValues() {
    FleetSettings a = newStore();
    FleetSettings b = sameStore(a);
    FleetSettings.Recorded first = a.agree(Map.of("tokenTtl", "PT5M", "name", ""));
    assertEquals(1, first.version());
    assertEquals(Map.of("tokenTtl", "PT5M", "name", ""), first.values(), "empty is a value");
    FleetSettings.Recorded second = b.agree(Map.of("tokenTtl", "PT10M", "offerTimeout", "PT1M"));
    assertEquals(
        Map.of("tokenTtl", "PT5M", "offerTimeout", "PT1M"),
        second.values(),
        "the recorded value wins; a setting nobody recorded is recorded");
    assertEquals(2, second.version());
    assertEquals(2, a.agree(Map.of("tokenTtl", "PT1M")).version(), "nothing new: no write");
    assertEquals(
        Map.of("tokenTtl", "PT5M", "offerTimeout", "PT1M", "name", ""),
        a.read(List.of("tokenTtl", "offerTimeout", "name", "absent")).values());
  }

  @Test
  void aWriteReplacesTheValueMovesTheVersionAndEveryHandleReadsIt() {
    FleetSettings a = newStore();
    FleetSettings b = sameStore(a);
    a.agree(Map.of("tokenTtl", "PT5M"));
    assertEquals(2, b.write("tokenTtl", "PT10M"));
    assertEquals(3, a.write("maxQueueDepth", "7"));
    for (FleetSettings s : List.of(a, b)) {
      FleetSettings.Recorded r = s.read(List.of("tokenTtl", "maxQueueDepth"));
      assertEquals(3, r.version());
      assertEquals(Map.of("tokenTtl", "PT10M", "maxQueueDepth", "7"), r.values());
    }
    assertEquals(
        Map.of("tokenTtl", "PT10M"),
        b.agree(Map.of("tokenTtl", "PT5M")).values(),
        "an instance built later agrees with the value written, not the one first recorded");
  }

  @Test
  void instancesAgreeingAtOnceAllGetOneValue() throws Exception {
    FleetSettings a = newStore();
    List<FleetSettings> handles = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      handles.add(t == 0 ? a : sameStore(a));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<String>> got = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        FleetSettings h = handles.get(t);
        String mine = "PT" + (t + 1) + "M";
        got.add(pool.submit(() -> h.agree(Map.of("tokenTtl", mine)).values().get("tokenTtl")));
      }
      Set<String> values = new HashSet<>();
      for (Future<String> f : got) {
        values.add(f.get(10, TimeUnit.SECONDS));
      }
      assertEquals(1, values.size(), "one value for the fleet: " + values);
      assertEquals(1, a.read(List.of("tokenTtl")).version(), "recorded once");
    } finally {
      pool.shutdownNow();
    }
  }
}
