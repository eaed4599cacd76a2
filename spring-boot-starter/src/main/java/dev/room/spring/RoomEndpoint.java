package dev.room.spring;

import dev.room.AdmissionMode;
import dev.room.RoomMode;
import dev.room.WaitingRoom;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.lang.Nullable;

/**
 * The actuator endpoint {@code room}, for the operator: {@code GET /actuator/room} reads the room's
 * state; {@code POST /actuator/room} with a JSON body of any of {@code mode}, {@code announcement}
 * and {@code capacity} changes them live and answers the new state. Expose it with {@code
 * management.endpoints.web.exposure.include=health,room}, and only where operators alone reach it:
 * a write pauses or closes the sale. It shows counts, never a visitor's token.
 */
@Endpoint(id = "room")
public class RoomEndpoint {
  private final WaitingRoom room;
  private final WorkerThreads threads;

  /** The endpoint for {@code room}. */
  public RoomEndpoint(WaitingRoom room) {
    this(room, WorkerThreads.UNLIMITED);
  }

  RoomEndpoint(WaitingRoom room, WorkerThreads threads) {
    this.room = Objects.requireNonNull(room, "room");
    this.threads = Objects.requireNonNull(threads, "threads");
  }

  /**
   * What {@code GET /actuator/room} answers.
   *
   * @param capacity the slots
   * @param inFlight requests (or sessions) holding a slot
   * @param queueDepth clients waiting with a position of 1 or more
   * @param liveQueueDepth clients holding a ticket, including those told ready and not yet back
   * @param mode the room's mode
   * @param announcement the sale-wide announcement, {@code ""} for none
   * @param admissionMode what holds a slot
   * @param activeSessions shopping sessions running (admission mode {@code SESSIONS})
   * @param outstandingOffers clients told they may come in who have not yet claimed their slot
   * @param admissionRate the configured admissions a second, 0 = unlimited
   * @param utilization in-flight ÷ capacity
   */
  public record State(
      int capacity,
      int inFlight,
      long queueDepth,
      long liveQueueDepth,
      RoomMode mode,
      String announcement,
      AdmissionMode admissionMode,
      int activeSessions,
      int outstandingOffers,
      double admissionRate,
      double utilization) {}

  /** The room's state now. */
  @ReadOperation
  public State state() {
    return new State(
        room.capacity(),
        room.inFlight(),
        room.queueDepth(),
        room.liveQueueDepth(),
        room.mode(),
        room.announcement(),
        room.admissionMode(),
        room.activeSessions(),
        room.outstandingOffers(),
        room.admissionRate(),
        room.utilization());
  }

  /**
   * Changes what is given (a {@link RoomMode} name such as {@code paused} or {@code queue-all}; an
   * announcement, {@code ""} to clear it; a capacity) and answers the new state. Every value is
   * checked before any is applied, so a bad request changes nothing (400).
   */
  @WriteOperation
  public State update(
      @Nullable RoomMode mode, @Nullable String announcement, @Nullable Integer capacity) {
    if (mode == null && announcement == null && capacity == null) {
      throw new InvalidEndpointRequestException(
          "give at least one of mode, announcement, capacity", "nothing to change");
    }
    if (capacity != null) {
      if (capacity < 1) {
        throw new InvalidEndpointRequestException(
            "capacity must be at least 1, was " + capacity, "bad capacity");
      }
      if (!threads.fits(capacity)) {
        String m =
            threads.description(capacity, "capacity") + " " + threads.action(capacity, "capacity");
        throw new InvalidEndpointRequestException(m, "capacity above the worker threads");
      }
    }
    if (announcement != null && announcement.length() > 1000) {
      throw new InvalidEndpointRequestException(
          "announcement must be at most 1000 characters, was " + announcement.length(),
          "announcement too long");
    }
    if (capacity != null) {
      room.setCapacity(capacity);
    }
    if (announcement != null) {
      room.setAnnouncement(announcement);
    }
    if (mode != null) {
      room.setMode(mode);
    }
    return state();
  }
}
