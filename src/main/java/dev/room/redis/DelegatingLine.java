package dev.room.redis;

import dev.room.TicketInfo;
import dev.room.redis.LuaScripts.Op;
import dev.room.spi.Controls;
import dev.room.spi.FleetSettings;
import dev.room.spi.HealthWindow;
import dev.room.spi.JoinLedger;
import dev.room.spi.Line;
import dev.room.spi.LineEntry;
import dev.room.spi.Move;
import dev.room.spi.Policy;
import dev.room.spi.PresaleStore;
import dev.room.spi.SessionStore;
import dev.room.spi.Tokens;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The {@link Line} contract of a {@link RedisLine}, each method handed to the one of its {@link
 * LineParts} that owns it. A package-private superclass, as {@code AbstractStringBuilder} is {@code
 * StringBuilder}'s, so that {@code RedisLine} holds only its public face (how it is built, its
 * lifecycle, its probes) while these methods stay public methods of {@code RedisLine}.
 */
abstract sealed class DelegatingLine implements Line permits RedisLine {
  final LineParts parts;

  DelegatingLine(LineParts parts) {
    this.parts = parts;
  }

  // join guard (r3-guard)
  /** Join limits, spent challenges and their secret, shared by every instance of the room. */
  @Override
  public JoinLedger joinLedger() {
    return new RedisJoinLedger(parts.link, parts.scripts.keys());
  }

  // ── Counters ───────────────────────────────────────────────────────────

  @Override
  public int capacity() {
    return parts.limits.capacity();
  }

  /** Sets the global capacity; while Redis is down the change is kept and applied on return. */
  @Override
  public void setCapacity(int capacity, long now) {
    parts.limits.setCapacity(capacity, now);
  }

  @Override
  public int inFlight() {
    return parts.scripts.inFlight();
  }

  @Override
  public int freeSlots() {
    return parts.limits.freeSlots();
  }

  @Override
  public long waiting() {
    return parts.scripts.refresh().waiting();
  }

  @Override
  public long ready() {
    return parts.scripts.refresh().ready();
  }

  @Override
  public long live() {
    parts.scripts.refresh();
    return parts.scripts.waiting() + parts.scripts.ready();
  }

  @Override
  public boolean used() {
    return parts.scripts.refresh().used();
  }

  /** The allowance is shared by every instance on this line: a hold set by one holds them all. */
  @Override
  public long allowance() {
    return parts.scripts.refresh().allowance();
  }

  @Override
  public void setAllowance(long allowance, long now) {
    parts.limits.setAllowance(allowance, now);
  }

  @Override
  public long replaceAllowance(long allowance, long now) {
    return parts.limits.replaceAllowance(allowance, now);
  }

  @Override
  public void addAllowance(long n, long max, long now) {
    parts.limits.addAllowance(n, max, now);
  }

  /** Holds the shared line for every instance: a refill by any of them adds nothing meanwhile. */
  @Override
  public void hold(boolean held, long now) {
    parts.limits.hold(held, now);
  }

  // rate bucket (u1-rate)
  /** The rate bucket is in Redis, one for every instance on this room id (lib/bucket.lua). */
  @Override
  public long meter(double perSecond, long burst, long now) {
    return parts.limits.meter(perSecond, burst, now);
  }

  @Override
  public long refill(long now) {
    return parts.limits.refill(now);
  }

  // end rate bucket

  /** The sale controls in Redis: every instance on this room id shares them. */
  @Override
  public Controls controls() {
    return parts.controls;
  }

  /** The settings every instance on this room id holds alike, this line's lease TTL among them. */
  @Override
  public FleetSettings fleetSettings() {
    return parts.fleetSettings;
  }

  // pre-sale and health-driven capacity across the fleet (u2-sale)
  /** The pre-sale in Redis: every instance on this room id shares it and its one draw. */
  @Override
  public PresaleStore presales() {
    return new RedisPresaleStore(parts.link, parts.scripts.keys());
  }

  /** The window of request samples in Redis: every instance on this room id feeds it. */
  @Override
  public HealthWindow healthWindow() {
    return new RedisHealthWindow(parts.link, parts.scripts.keys());
  }

  @Override
  public int drawPresale(IntFunction<int[]> order, long now) {
    return parts.management.drawPresale(order);
  }

  // ── The request path ───────────────────────────────────────────────────

  @Override
  public boolean tryEnter() {
    return parts.admissions.tryEnter();
  }

  @Override
  public void exit(long now) {
    parts.admissions.exit(now);
  }

  @Override
  public long arrive(long hi, long lo, String clientKey, boolean toFront, long now, Policy p) {
    return parts.admissions.arrive(hi, lo, clientKey, toFront, now, p);
  }

  // identity (one place per person): the rule is in ops/arrive.lua and lib/identity.lua
  @Override
  public long arrive(
      long hi, long lo, String identity, String clientKey, boolean toFront, long now, Policy p) {
    return parts.admissions.arrive(hi, lo, identity, clientKey, toFront, now, p);
  }

  @Override
  public boolean keepsIdentities() {
    return true;
  }

  @Override
  public String identitySalt() {
    return parts.archive.identitySalt();
  }

  @Override
  public int restore(
      Iterator<LineEntry> tickets, Iterator<long[]> passList, String identitySalt, long now) {
    return parts.archive.restore(tickets, passList, identitySalt, now);
  }

  // end identity

  @Override
  public long poll(long hi, long lo, long now, Policy p) {
    return parts.admissions.poll(hi, lo, now, p);
  }

  @Override
  public long claim(long hi, long lo, long now, Policy p) {
    return parts.admissions.claim(hi, lo, now, p);
  }

  // ── Line management ────────────────────────────────────────────────────

  @Override
  public boolean remove(long hi, long lo, long now) {
    return parts.management.remove(hi, lo, now);
  }

  @Override
  public int removeIf(Predicate<TicketInfo> match, long now) {
    return parts.management.removeIf(match, now);
  }

  @Override
  public Move promote(long hi, long lo, long target) {
    return parts.management.move(hi, lo, target, true);
  }

  @Override
  public Move quote(long hi, long lo, long target) {
    return parts.management.move(hi, lo, target, false);
  }

  @Override
  public boolean rank(long hi, long lo, int rank) {
    return parts.management.rank(hi, lo, rank);
  }

  @Override
  public List<TicketInfo> queue(int limit) {
    return parts.management.queue(limit);
  }

  @Override
  public TicketInfo ticket(long hi, long lo) {
    return parts.management.ticket(hi, lo);
  }

  /**
   * One reaper pass in bounded steps; lapsed leases are reaped too. Nothing while Redis is down.
   */
  @Override
  public int[] evict(long now, Policy p) {
    return parts.management.evict(now, p);
  }

  @Override
  public int lapseAbsent(long now, Policy p) {
    return parts.management.lapseAbsent(now, p);
  }

  // ── Passes ─────────────────────────────────────────────────────────────

  @Override
  public void grantPass(long hi, long lo, long expiresAt) {
    parts.scripts.update(Op.PASS, Tokens.format(hi, lo), Long.toString(expiresAt));
  }

  @Override
  public long passExpiry(long hi, long lo) {
    return parts.passes.expiry(hi, lo);
  }

  @Override
  public int sweepPasses(long now) {
    return parts.passes.sweep(now);
  }

  // ── Export and import ──────────────────────────────────────────────────

  @Override
  public void export(Consumer<LineEntry> tickets, Consumer<long[]> passSink) {
    parts.archive.export(tickets, passSink);
  }

  @Override
  public int restore(Iterator<LineEntry> tickets, Iterator<long[]> passList, long now) {
    return parts.archive.restore(tickets, passList, now);
  }

  // ── Admission sessions ─────────────────────────────────────────────────

  /** The room's admission sessions, shared in Redis by every instance on this line. */
  @Override
  public Optional<SessionStore> sharedSessions() {
    return Optional.of(parts.sessions);
  }
}
