package dev.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.room.engine.InMemoryLine;
import dev.room.spi.Line;
import dev.room.spi.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Modes and their transitions on a fake clock, without HTTP; line invariants after every test. */
class SaleModeTest {
  private final FakeClock clock = new FakeClock();
  private final InMemoryLine line = new InMemoryLine(2);
  private final WaitingRoom room = WaitingRoom.builder().line(line).clock(clock).build();
  private final List<Snapshot> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void checkAndClose() {
    try {
      line.checkInvariants();
    } finally {
      room.close();
    }
  }

  private List<Visitor> queue(int n) {
    List<Visitor> vs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Visitor v = Visitor.arrive(room);
      assertEquals(Outcome.WAITING, v.arrived(), "visitor " + i + " queues");
      vs.add(v);
    }
    return vs;
  }

  private void fill() {
    while (room.tryEnter()) {
      // take the next slot
    }
  }

  @Test
  void openIsTheDefaultAndTheLineIsUnmetered() {
    assertEquals(RoomMode.OPEN, room.mode());
    assertEquals(Line.UNLIMITED, line.allowance());
    assertTrue(room.tryEnter());
    room.exit();
  }

  @Test
  void queueAllQueuesEveryoneAndAdmitsNobodyUntilOpen() {
    room.setMode(RoomMode.QUEUE_ALL);
    assertFalse(room.tryEnter(), "no fast path, although both slots are free");
    List<Visitor> vs = queue(3);
    assertEquals(2, line.freeSlots(), "no hand-over either");
    assertEquals(3, vs.get(2).position());
    assertFalse(vs.get(0).claim(), "coming back early changes nothing");

    room.setMode(RoomMode.OPEN);
    assertTrue(vs.get(0).ready(), "opening hands the free slots to the first in line");
    assertTrue(vs.get(1).ready());
    assertEquals(1, vs.get(2).position());
    assertTrue(vs.get(0).claim());
    assertTrue(vs.get(1).claim());
    room.exit();
    assertTrue(vs.get(2).ready());
    assertTrue(vs.get(2).claim());
    room.exit();
    room.exit();
  }

  @Test
  void pausedToOpenHandsSlotsToTheFirstInLineInOrder() {
    fill();
    List<Visitor> vs = queue(5);
    room.setMode(RoomMode.PAUSED);
    room.exit();
    room.exit();
    assertEquals(0, room.inFlight());
    assertEquals(2, line.freeSlots(), "freed slots stay free while paused");
    for (int i = 0; i < 5; i++) {
      assertEquals(i + 1, vs.get(i).position(), "everyone keeps their place");
    }
    assertFalse(room.tryEnter());
    Visitor late = Visitor.arrive(room);
    assertEquals(Outcome.WAITING, late.arrived());
    assertEquals(6, late.position(), "a newcomer joins the back");

    room.setMode(RoomMode.OPEN);
    List<Visitor> served = new ArrayList<>();
    List<Visitor> everyone = new ArrayList<>(vs);
    everyone.add(late);
    while (served.size() < everyone.size()) {
      List<Visitor> readyNow = new ArrayList<>();
      for (Visitor v : everyone) {
        if (!served.contains(v) && v.ready()) {
          readyNow.add(v);
        }
      }
      assertFalse(readyNow.isEmpty(), "the line moves");
      for (Visitor v : readyNow) {
        assertTrue(v.claim());
        served.add(v);
      }
      for (int i = 0; i < readyNow.size(); i++) {
        room.exit();
      }
    }
    assertEquals(everyone, served, "served in the order they queued");
  }

  @Test
  void aClientToldReadyBeforeAPauseKeepsItsSlot() {
    fill();
    List<Visitor> vs = queue(2);
    room.exit();
    assertTrue(vs.get(0).ready());
    room.setMode(RoomMode.PAUSED);
    assertTrue(vs.get(0).claim(), "an offer made is an offer kept");
    room.exit();
    assertEquals(1, vs.get(1).position(), "but nobody else moves");
    room.setMode(RoomMode.OPEN);
    assertTrue(vs.get(1).ready());
    assertTrue(vs.get(1).claim());
    room.exit();
    room.exit();
  }

  @Test
  void closedAdmitsNobodyNewAndKeepsTheLineForAReopening() {
    fill();
    List<Visitor> vs = queue(2);
    room.setMode(RoomMode.CLOSED);
    room.exit();
    assertEquals(1, vs.get(0).position(), "no progress while closed");
    Standing s = room.sale().standing(1, clock.millis());
    assertEquals("closed", s.state());
    assertFalse(s.showPosition(), "no misleading progress");
    assertEquals(Standing.CLOSED_MESSAGE, s.message());
    assertEquals(-1, s.waitLow());
    room.setAnnouncement("Sold out. Thank you!");
    assertEquals("Sold out. Thank you!", room.sale().standing(1, clock.millis()).message());
    room.setMode(RoomMode.OPEN);
    assertTrue(vs.get(0).ready(), "returned tickets: the room reopens where it stopped");
    assertTrue(vs.get(0).claim());
    room.exit();
    room.exit();
    assertTrue(vs.get(1).ready());
  }

  @Test
  void aClosedRoomThatReopensIsNoticedWithinOnePollNotHalfAMinuteLater() {
    fill();
    queue(1);
    room.setMode(RoomMode.CLOSED);
    for (long position : new long[] {1, 500, 1000}) {
      long poll = room.sale().standing(position, clock.millis()).pollAfterMillis();
      assertTrue(
          poll <= Standing.PAUSED_POLL_MILLIS * 1.2,
          "a closed room's visitor at " + position + " polls again within " + poll + " ms");
    }
    room.setMode(RoomMode.OPEN);
  }

  @Test
  void everyChangeFiresModeWithTheNewModeAndRepeatsFireNothing() throws Exception {
    room.on(Event.MODE, events::add);
    room.setMode(RoomMode.PAUSED);
    room.setMode(RoomMode.PAUSED);
    room.setMode(RoomMode.PASSTHROUGH);
    room.setMode(RoomMode.OPEN);
    assertTrue(room.events().awaitIdle(5000));
    assertEquals(
        List.of("paused", "passthrough", "open"), events.stream().map(Snapshot::detail).toList());
  }

  @Test
  void theStateAndMessageFollowTheMode() {
    long now = clock.millis();
    assertEquals("waiting", room.sale().standing(3, now).state());
    assertEquals("", room.sale().standing(3, now).message());
    room.setMode(RoomMode.PAUSED);
    Standing paused = room.sale().standing(3, now);
    assertEquals("paused", paused.state());
    assertTrue(paused.showPosition(), "a pause keeps places, and says so");
    assertEquals(Standing.PAUSED_MESSAGE, paused.message());
    room.setMode(RoomMode.QUEUE_ALL);
    assertEquals("waiting", room.sale().standing(3, now).state());
    assertEquals(Standing.QUEUE_ALL_MESSAGE, room.sale().standing(3, now).message());
    room.setMode(RoomMode.PASSTHROUGH);
    assertEquals("passthrough", room.sale().standing(3, now).state());
  }

  @Test
  void passthroughLetsWaitingClientsInAndHandsNothingOver() {
    fill();
    List<Visitor> vs = queue(2);
    room.setMode(RoomMode.PASSTHROUGH);
    assertEquals(0, line.allowance(), "the line itself is held: requests bypass it");
    room.passedThrough(
        dev.room.spi.Tokens.hi(vs.get(0).token), dev.room.spi.Tokens.lo(vs.get(0).token));
    assertEquals(1, room.queueDepth(), "a client let in leaves the line");
    room.exit();
    room.exit();
    room.setMode(RoomMode.OPEN);
    assertTrue(vs.get(1).ready());
    assertTrue(vs.get(1).claim());
    room.exit();
  }

  @Test
  void settersValidate() {
    assertThrows(NullPointerException.class, () -> room.setMode(null));
    assertThrows(IllegalArgumentException.class, () -> room.setAdmissionRate(-1));
    assertThrows(IllegalArgumentException.class, () -> room.setAdmissionRate(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> room.setAnnouncement("x".repeat(1001)));
    assertThrows(IllegalArgumentException.class, () -> room.setName("Shop"));
    assertThrows(IllegalArgumentException.class, () -> room.setName("a/b"));
    room.setName("spring-sale-2026");
    assertEquals("spring-sale-2026", room.name());
    assertEquals("/queue/spring-sale-2026/status", room.defaultStatusPath());
    room.setAnnouncement(null);
    assertEquals("", room.announcement());
  }
}
