package dev.room.engine;

import dev.room.spi.SessionStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The sessions of a room whose instances share nothing, in this JVM.
 *
 * <p>Implementation notes. A session ends by removing it from {@code byId} (a conditional remove,
 * so exactly one of racing callers wins), and only the winner gives its slot back. A start and a
 * new generation are serialised by the store's lock, so no session of an earlier generation
 * survives the change; gets and renewals take no lock.
 */
public final class InMemorySessionStore implements SessionStore {
  private final ConcurrentHashMap<String, Session> byId = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Session> byTicket = new ConcurrentHashMap<>();
  private final LongConsumer release;
  private volatile long generation;

  /** Sessions whose slots are given back to the line through {@code release} (its exit). */
  public InMemorySessionStore(LongConsumer release) {
    this.release = release;
  }

  @Override
  public synchronized Session start(String id, String ticket, long now, long duration, long max) {
    long maxAt = now + max;
    Session s = new Session(id, ticket, now, Math.min(now + duration, maxAt), maxAt, generation);
    byId.put(id, s);
    if (!ticket.isEmpty()) {
      byTicket.put(ticket, s);
    }
    return s;
  }

  @Override
  public Session get(String id, long now) {
    return byId.get(id);
  }

  @Override
  public Session byTicket(String ticket, long now) {
    return byTicket.get(ticket);
  }

  @Override
  public long renew(Session s, long now, long duration) {
    while (true) {
      long current = s.expiresAt();
      long target = SessionStore.slide(current, s.maxAt(), now, duration);
      if (target == current || s.moveExpiry(current, target)) {
        return s.expiresAt();
      }
    }
  }

  @Override
  public boolean end(Session s, long now) {
    if (!byId.remove(s.id(), s)) {
      return false;
    }
    s.markEnded();
    if (!s.ticket().isEmpty()) {
      byTicket.remove(s.ticket(), s);
    }
    release.accept(now);
    return true;
  }

  @Override
  public boolean expire(Session s, long now) {
    return now >= s.expiresAt() && end(s, now);
  }

  @Override
  public List<String> sweep(long now) {
    List<String> out = new ArrayList<>();
    for (Session s : byId.values()) {
      if (expire(s, now)) {
        out.add(s.id());
      }
    }
    return out;
  }

  @Override
  public int count() {
    return byId.size();
  }

  @Override
  public long generation() {
    return generation;
  }

  @Override
  public synchronized long newGeneration(long now, Consumer<String> ended) {
    long g = ++generation;
    for (Session s : byId.values()) {
      if (end(s, now)) {
        ended.accept(s.id());
      }
    }
    return g;
  }
}
