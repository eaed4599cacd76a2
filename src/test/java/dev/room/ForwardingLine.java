package dev.room;

import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.Move;
import dev.room.spi.Policy;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A line that implements only the original interface, as a third-party line written before
 * allowances and draws would: the new methods keep their defaults.
 */
final class ForwardingLine implements Line {
  private final Line d;

  ForwardingLine(Line delegate) {
    this.d = delegate;
  }

  @Override
  public int capacity() {
    return d.capacity();
  }

  @Override
  public void setCapacity(int capacity, long now) {
    d.setCapacity(capacity, now);
  }

  @Override
  public int inFlight() {
    return d.inFlight();
  }

  @Override
  public int freeSlots() {
    return d.freeSlots();
  }

  @Override
  public long waiting() {
    return d.waiting();
  }

  @Override
  public long ready() {
    return d.ready();
  }

  @Override
  public boolean used() {
    return d.used();
  }

  @Override
  public boolean tryEnter() {
    return d.tryEnter();
  }

  @Override
  public void exit(long now) {
    d.exit(now);
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    return d.arrive(hi, lo, clientKey, toFront, now, p);
  }

  @Override
  public long poll(long hi, long lo, long now, Policy p) {
    return d.poll(hi, lo, now, p);
  }

  @Override
  public long claim(long hi, long lo, long now, Policy p) {
    return d.claim(hi, lo, now, p);
  }

  @Override
  public boolean remove(long hi, long lo, long now) {
    return d.remove(hi, lo, now);
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    return d.removeIf(match, now);
  }

  @Override
  public Move promote(long hi, long lo, long target) {
    return d.promote(hi, lo, target);
  }

  @Override
  public boolean rank(long hi, long lo, int rank) {
    return d.rank(hi, lo, rank);
  }

  @Override
  public Move quote(long hi, long lo, long target) {
    return d.quote(hi, lo, target);
  }

  @Override
  public List<TicketInfo> queue(int limit) {
    return d.queue(limit);
  }

  @Override
  public TicketInfo ticket(long hi, long lo) {
    return d.ticket(hi, lo);
  }

  @Override
  public int[] evict(long now, Policy p) {
    return d.evict(now, p);
  }

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    d.grantPass(hi, lo, expiresAt);
  }

  @Override
  public long passExpiry(long hi, long lo) {
    return d.passExpiry(hi, lo);
  }

  @Override
  public int sweepPasses(long now) {
    return d.sweepPasses(now);
  }

  @Override
  public void export(Consumer<LineEntry> tickets, Consumer<long[]> passes) {
    d.export(tickets, passes);
  }

  @Override
  public int restore(Iterator<LineEntry> tickets, Iterator<long[]> passes, long now) {
    return d.restore(tickets, passes, now);
  }

  @Override
  public void close() {
    d.close();
  }
}
