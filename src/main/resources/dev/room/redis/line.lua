-- The line's state transitions on Redis, one script per transition.
--
-- LuaScripts splits this file at the "--- script:" markers and prepends this common part to each
-- section, so every transition is one EVALSHA and runs atomically. The rules are the in-memory
-- line's (dev.room.engine.InMemoryLine): only the storage differs.
--
-- Keys, all in the room's hash tag so a room lives on one cluster shard (KEYS[1..15]):
--   meta    hash  cap, inflight, counter, rseq, gen, used, resumed, issued (the latest issuedAt)
--   tk      hash  token -> ticket record (a cmsgpack array, fields below)
--   line    zset  waiting tickets, all score 0, member = group(24) order(16) token(32), so the
--                 lexicographic order is the line order: band desc, place asc, order asc
--   heads   zset  one member per tie group (band + place), score 0: ZRANK + 1 is a position
--   gsize   hash  group -> members waiting in it
--   ready   zset  ready tickets, scored by the order they became ready
--   rdyat   zset  ready tickets by readyAt (the claim deadline's start)
--   act     zset  every ticket by lastActivity (the sliding TTL)
--   unseen  zset  tickets never seen since issue, by issuedAt (the first-poll grace)
--   passes  zset  VIP pass token -> expiresAt
--   leases  zset  lease generation -> expiry; a generation is one registration of one instance
--   held    hash  lease generation -> slots held under it
--   owners  hash  lease generation -> instance name (for operators)
--   here    zset  the present waiting tickets (not away), members as in line: the first is the one
--                 a freed slot goes to. A member may be stale (left by an instance that predates
--                 the key): rebalance checks it against the record and drops it.
--   aoff    zset  offers made to away clients (after an import, before they polled), by offer time
--
-- Presence: a waiting ticket is present or away (record field AWAY). Away tickets are restored ones
-- not heard from since the import and ones whose offer lapsed; they keep their place (positions
-- count them) but are passed over when a slot is handed on. A poll or claim makes them present. A
-- lapsed offer is not an ending: the ticket waits again at its own place, away.
--
-- Free slots are derived, never stored: cap - inflight - #ready. inflight is the sum of held.
-- Times are epoch millis from the callers' clocks; integers stay exact below 2^53.

local META, TK, LINE, HEADS, GSIZE, READYQ, RDYAT, ACT, UNSEEN, PASSES, LEASES, HELD, OWNERS =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10],
  KEYS[11], KEYS[12], KEYS[13]
local HERE, AOFF = KEYS[14], KEYS[15]
-- A restore's staging keys follow the shared ones: KEYS[STAGED + 1 .. STAGED + 7].
local STAGED = 15

-- Ticket record fields.
local NUMBER, BAND, PLACE, ORDER, RANK, ISSUED, LAST, LASTPOLL, COOKIES, READYAT, STATE = 1, 2, 3,
  4, 5, 6, 7, 8, 9, 10, 11
local SEEN, POLLED, HASPASS, PROMOTED, TOLD, RESEND, CLIENTKEY = 12, 13, 14, 15, 16, 17, 18
-- AWAY (1 = away; absent in records written before it = present).
local AWAY = 19
-- A client restored as ready keeps the key it was exported with, which its export writes back.
local SHOWNBAND, SHOWNPLACE, SHOWNORDER = 20, 21, 22
local WAITING, READY = 1, 2

-- Outcome kinds and flags (decoded by RedisLine into dev.room.spi.Outcome).
local K_UNKNOWN, K_WAITING, K_READY, K_ADMITTED, K_REJECTED = 0, 1, 2, 3, 4
local F_RATE_LIMITED, F_REFRESH, F_EVICTED, F_TIMED_OUT, F_PROMOTED, F_FIRST_READY = 1, 2, 4, 8,
  16, 32
local FENCED, NOT_FOUND, NOT_WAITING = -1, -2, -3
local MAXBAND = 2147483647
-- The band of clients restored as ready without a slot (called before the restart): above every
-- rank's band, so they stay first in line (LineRestore.CALLED, InMemoryLine's Ticket.CALLED).
local CALLED = MAXBAND

local function metaNum(field)
  return tonumber(redis.call('HGET', META, field)) or 0
end

local function int(n)
  return string.format('%d', n)
end

local function group(band, place)
  return string.format('%08x%016x', MAXBAND - band, place)
end

local function memberOf(t, token)
  return group(t[BAND], t[PLACE]) .. string.format('%016x', t[ORDER]) .. token
end

local function load(token)
  local r = redis.call('HGET', TK, token)
  if not r then
    return nil
  end
  return cmsgpack.unpack(r)
end

local function save(token, t)
  redis.call('HSET', TK, token, cmsgpack.pack(t))
end

local function away(t)
  return t[AWAY] == 1
end

local function enqueue(t, token)
  local g = group(t[BAND], t[PLACE])
  local m = g .. string.format('%016x', t[ORDER]) .. token
  redis.call('ZADD', LINE, 0, m)
  if not away(t) then
    redis.call('ZADD', HERE, 0, m)
  end
  if redis.call('HINCRBY', GSIZE, g, 1) == 1 then
    redis.call('ZADD', HEADS, 0, g)
  end
end

local function dequeue(t, token)
  local g = group(t[BAND], t[PLACE])
  local m = memberOf(t, token)
  redis.call('ZREM', LINE, m)
  redis.call('ZREM', HERE, m)
  if redis.call('HINCRBY', GSIZE, g, -1) <= 0 then
    redis.call('HDEL', GSIZE, g)
    redis.call('ZREM', HEADS, g)
  end
end

-- The member just before / after a lex bound ('(' or '[' prefixed), or nil.
local function before(bound)
  return redis.call('ZRANGE', LINE, bound, '-', 'BYLEX', 'REV', 'LIMIT', 0, 1)[1]
end

local function after(bound)
  return redis.call('ZRANGE', LINE, bound, '+', 'BYLEX', 'LIMIT', 0, 1)[1]
end

-- An exclusive lex bound just past every member starting with prefix (members are lowercase hex).
local function past(prefix)
  return '(' .. prefix .. 'g'
end

local function bandOf(member)
  return MAXBAND - tonumber(string.sub(member, 1, 8), 16)
end

-- Ties ticket t (not in line) into group (band, place): behind the members promoted into it
-- before, ahead of the member holding the place, which takes a fresher order. Saves t.
local function joinTie(t, token, band, place)
  t[BAND] = band
  t[PLACE] = place
  t[PROMOTED] = 1
  t[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
  save(token, t)
  local g = group(band, place)
  local last = before(past(g))
  if last and string.sub(last, 1, 24) == g then
    local holderToken = string.sub(last, 41)
    local holder = load(holderToken)
    if holder[PROMOTED] == 0 then
      dequeue(holder, holderToken)
      enqueue(t, token)
      holder[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
      save(holderToken, holder)
      enqueue(holder, holderToken)
      return
    end
  end
  enqueue(t, token)
end

-- One plus the number of tie groups ahead of the ticket's own.
local function position(t)
  return redis.call('ZRANK', HEADS, group(t[BAND], t[PLACE])) + 1
end

local function freeSlots()
  return metaNum('cap') - metaNum('inflight') - redis.call('ZCARD', READYQ)
end

-- The admission allowance (meta 'allow'): absent = unlimited, else how many more slots may be
-- handed over or taken by the fast path (0 holds the line).
local function allowance()
  local a = redis.call('HGET', META, 'allow')
  if not a then
    return nil
  end
  return tonumber(a)
end

-- Turns waiting ticket t ready, holding a free slot; an offer to an away client goes in aoff.
local function offer(token, t, now)
  dequeue(t, token)
  t[STATE] = READY
  t[READYAT] = now
  t[TOLD] = 0
  save(token, t)
  redis.call('ZADD', READYQ, redis.call('HINCRBY', META, 'rseq', 1), token)
  redis.call('ZADD', RDYAT, now, token)
  if away(t) then
    redis.call('ZADD', AOFF, now, token)
  end
end

-- Policy.expired, plus the amnesty after an outage: no clock runs from before 'resumed'.
local function expired(t, now, ttl, grace)
  local resumed = metaNum('resumed')
  if now - math.max(t[LAST], resumed) >= ttl then
    return true
  end
  return t[SEEN] == 0 and grace > 0 and grace < ttl and now - math.max(t[ISSUED], resumed) >= grace
end

local retire

-- Hands free slots to the first present waiters, as far as the allowance goes: each becomes
-- ready, holding a reserved slot. With ttl given (the reaper), a present waiter found expired at
-- the head is retired instead; returns how many were.
local function rebalance(now, ttl, grace)
  local free = freeSlots()
  local allow = allowance()
  if allow then
    free = math.min(free, allow)
  end
  local handed, retired = 0, 0
  while free > 0 do
    local first = redis.call('ZRANGE', HERE, 0, 0)[1]
    if not first then
      break
    end
    local token = string.sub(first, 41)
    local t = load(token)
    if not t or t[STATE] ~= WAITING or away(t) or memberOf(t, token) ~= first then
      redis.call('ZREM', HERE, first)
    elseif ttl and expired(t, now, ttl, grace) then
      retire(token, t, now, true)
      retired = retired + 1
    else
      offer(token, t, now)
      free = free - 1
      handed = handed + 1
    end
  end
  if allow and handed > 0 then
    redis.call('HINCRBY', META, 'allow', -handed)
  end
  return retired
end

-- After an import nothing is in flight and nobody has polled: the first in line are offered the
-- free slots, away or not.
local function offerFirst(now)
  local free = freeSlots()
  local allow = allowance()
  if allow then
    free = math.min(free, allow)
  end
  if free <= 0 then
    return
  end
  local first = redis.call('ZRANGE', LINE, 0, free - 1)
  for i = 1, #first do
    local token = string.sub(first[i], 41)
    offer(token, load(token), now)
  end
  if allow and #first > 0 then
    redis.call('HINCRBY', META, 'allow', -#first)
  end
end

-- Ends a ticket that will never be admitted; a ready one's reserved slot moves on (unless quiet:
-- the caller hands it on).
retire = function(token, t, now, quiet)
  redis.call('HDEL', TK, token)
  redis.call('ZREM', ACT, token)
  redis.call('ZREM', UNSEEN, token)
  if t[STATE] == WAITING then
    dequeue(t, token)
  else
    redis.call('ZREM', READYQ, token)
    redis.call('ZREM', RDYAT, token)
    redis.call('ZREM', AOFF, token)
    if not quiet then
      rebalance(now)
    end
  end
end

-- Policy.awayOfferWindow: how long an offer to an away client waits for a poll.
local function awayWindow(grace, offerTimeout)
  return math.min(grace > 0 and grace or 30000, offerTimeout)
end

-- Policy.offerLapsed, with the amnesty.
local function lapsed(t, now, grace, offerTimeout)
  if t[STATE] ~= READY then
    return false
  end
  local span = away(t) and awayWindow(grace, offerTimeout) or offerTimeout
  return now - math.max(t[READYAT], metaNum('resumed')) >= span
end

-- Ends a ready ticket's offer, not the ticket: its slot is given back (the caller hands it on) and
-- it waits again at its own place, away (1) unless its client is the one calling (0). Returns
-- whether its client had been told (a TIMEOUT).
local function lapse(token, t, awayFlag)
  local told = t[TOLD] == 1
  redis.call('ZREM', READYQ, token)
  redis.call('ZREM', RDYAT, token)
  redis.call('ZREM', AOFF, token)
  t[STATE] = WAITING
  t[TOLD] = 0
  t[AWAY] = awayFlag
  save(token, t)
  enqueue(t, token)
  return told
end

-- Its client was heard from: an away waiter is passed over no more (standing ahead, it is offered
-- the next slot, at once if one is free), and an offer made while away runs its full timeout from
-- when the client is told. Saves t; returns it as it is after the hand-over.
local function present(token, t, now)
  t[AWAY] = 0
  save(token, t)
  if t[STATE] == READY then
    redis.call('ZREM', AOFF, token)
    return t
  end
  redis.call('ZADD', HERE, 0, memberOf(t, token))
  rebalance(now)
  return load(token)
end

-- For a poll or claim: lapses a due offer (the TIMEOUT flag if its client had been told) and hands
-- the slot on; returns the flags and the ticket as it is now. Its client is heard from now, so it
-- waits present and, standing ahead of everyone it was offered before, gets the slot back unless a
-- present client ahead of it takes it.
local function lapseIfDue(token, t, now, grace, offerTimeout)
  if not lapsed(t, now, grace, offerTimeout) then
    return 0, t
  end
  local flags = lapse(token, t, 0) and F_TIMED_OUT or 0
  rebalance(now)
  return flags, load(token)
end

-- Turns a ready ticket's reserved slot into a slot held under lease generation gen.
local function admitReady(token, gen)
  redis.call('HDEL', TK, token)
  redis.call('ZREM', ACT, token)
  redis.call('ZREM', UNSEEN, token)
  redis.call('ZREM', READYQ, token)
  redis.call('ZREM', RDYAT, token)
  redis.call('HINCRBY', META, 'inflight', 1)
  redis.call('HINCRBY', HELD, gen, 1)
end

-- Drops a lease: the slots held under it return (the caller rebalances).
local function dropLease(gen)
  local h = tonumber(redis.call('HGET', HELD, gen)) or 0
  if h ~= 0 then
    redis.call('HINCRBY', META, 'inflight', -h)
  end
  redis.call('HDEL', HELD, gen)
  redis.call('HDEL', OWNERS, gen)
  redis.call('ZREM', LEASES, gen)
end

-- The fence: whether generation gen may still admit and release. A lapsed lease is dropped here.
local function leaseLive(gen, now)
  local expiry = redis.call('ZSCORE', LEASES, gen)
  if not expiry then
    return false
  end
  if tonumber(expiry) <= now then
    dropLease(gen)
    rebalance(now)
    return false
  end
  return true
end

local function reapLeases(now)
  local dead = redis.call('ZRANGEBYSCORE', LEASES, '-inf', now)
  for i = 1, #dead do
    dropLease(dead[i])
  end
  if #dead > 0 then
    rebalance(now)
  end
  return #dead
end

-- A state change's reply: its result, then the counters RedisLine caches (allowance -1 = none).
local function reply(a, b, c)
  return {a, b, c, metaNum('cap'), metaNum('inflight'), redis.call('ZCARD', READYQ),
    redis.call('ZCARD', LINE), metaNum('used'), allowance() or -1}
end

-- The fields of a ticket as the admin reads and the export see them. A client restored as ready
-- is written back as it was read; one that joined its group (a pass, a promotion) is written as
-- ready too, right behind it, as the export has no way to tie with a ready client.
local function fields(out, token, t, pos)
  local n = #out
  local band, place, order = t[BAND], t[PLACE], t[ORDER]
  local called = band == CALLED
  if t[SHOWNBAND] then
    band, place, order = t[SHOWNBAND], t[SHOWNPLACE], t[SHOWNORDER]
  elseif called then
    band = 0
  end
  out[n + 1] = token
  out[n + 2] = pos
  out[n + 3] = band
  out[n + 4] = place
  out[n + 5] = order
  out[n + 6] = t[RANK]
  out[n + 7] = t[ISSUED]
  out[n + 8] = t[LAST]
  out[n + 9] = t[LASTPOLL]
  out[n + 10] = t[POLLED]
  out[n + 11] = t[SEEN]
  out[n + 12] = t[HASPASS]
  out[n + 13] = t[CLIENTKEY]
  out[n + 14] = t[NUMBER]
  out[n + 15] = (t[STATE] == READY or called) and 1 or 0
  out[n + 16] = t[PROMOTED]
end

--- script: enter
-- ARGV: gen, now. Takes a slot if nobody waits, one is free and the allowance allows.
local gen, now = ARGV[1], tonumber(ARGV[2])
if redis.call('ZCARD', LINE) > 0 then
  return reply(0, 0, 0)
end
if not leaseLive(gen, now) then
  return reply(FENCED, 0, 0)
end
local allow = allowance()
if freeSlots() <= 0 or (allow and allow <= 0) then
  return reply(0, 0, 0)
end
if allow then
  redis.call('HINCRBY', META, 'allow', -1)
end
redis.call('HINCRBY', META, 'inflight', 1)
redis.call('HINCRBY', HELD, gen, 1)
redis.call('HSET', META, 'used', 1)
return reply(1, 0, 0)

--- script: exit
-- ARGV: gen, now, n. Gives back up to n slots held under gen.
local gen, now = ARGV[1], tonumber(ARGV[2])
if not leaseLive(gen, now) then
  return reply(FENCED, 0, 0)
end
local n = math.min(tonumber(ARGV[3]), tonumber(redis.call('HGET', HELD, gen)) or 0)
if n > 0 then
  redis.call('HINCRBY', HELD, gen, -n)
  redis.call('HINCRBY', META, 'inflight', -n)
end
rebalance(now)
return reply(n, 0, 0)

--- script: arrive
-- ARGV: gen, token, clientKey, toFront, now, maxQueueDepth.
local gen, token, key, toFront = ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1'
local now, maxDepth = tonumber(ARGV[5]), tonumber(ARGV[6])
if not leaseLive(gen, now) then
  return reply(FENCED, 0, 0)
end
redis.call('HSET', META, 'used', 1)
if maxDepth > 0 and redis.call('ZCARD', LINE) >= maxDepth then
  return reply(K_REJECTED, 0, 0)
end
if redis.call('HEXISTS', TK, token) == 1 then
  return reply(K_UNKNOWN, 0, 0)
end
local n = redis.call('HINCRBY', META, 'counter', 1)
-- Callers read their clocks before this step, so an arrival placed later may carry an earlier
-- time: issuedAt is this step's time, never earlier than the arrival ahead (InMemoryLine.arrive).
local issued = math.max(now, metaNum('issued'))
redis.call('HSET', META, 'issued', int(issued))
local t = {n, 0, n, n, 0, issued, now, 0, now, 0, WAITING, 0, 0, toFront and 1 or 0, 0, 0, 0, key}
local flags = 0
local front = toFront and redis.call('ZRANGE', HEADS, 0, 0)[1]
if front then
  joinTie(t, token, bandOf(front), tonumber(string.sub(front, 9, 24), 16))
  flags = F_PROMOTED
else
  save(token, t)
  enqueue(t, token)
end
redis.call('ZADD', ACT, now, token)
redis.call('ZADD', UNSEEN, issued, token)
rebalance(now)
if redis.call('ZSCORE', READYQ, token) then
  admitReady(token, gen)
  return reply(K_ADMITTED, 0, 0)
end
return reply(K_WAITING, position(t), flags)

--- script: poll
-- ARGV: token, now, ttl, grace, pollInterval, cookieRefresh, offerTimeout. Returns kind, position,
-- flags.
local token, now = ARGV[1], tonumber(ARGV[2])
local grace, offerTimeout = tonumber(ARGV[4]), tonumber(ARGV[7])
local t = load(token)
if not t then
  return {K_UNKNOWN, 0, 0}
end
if expired(t, now, tonumber(ARGV[3]), grace) then
  retire(token, t, now)
  return {K_UNKNOWN, 0, F_EVICTED}
end
local flags
flags, t = lapseIfDue(token, t, now, grace, offerTimeout)
if t[POLLED] ~= 0 and now - t[LASTPOLL] < tonumber(ARGV[5]) then
  flags = flags + F_RATE_LIMITED
else
  t[LASTPOLL] = now
  t[POLLED] = 1
end
t[LAST] = now
redis.call('ZADD', ACT, now, token)
if t[SEEN] == 0 then
  t[SEEN] = 1
  redis.call('ZREM', UNSEEN, token)
end
if t[RESEND] == 1 or now - t[COOKIES] >= tonumber(ARGV[6]) then
  t[RESEND] = 0
  t[COOKIES] = now
  flags = flags + F_REFRESH
end
if away(t) then
  t = present(token, t, now)
end
if t[STATE] == READY then
  if t[TOLD] == 0 then
    t[TOLD] = 1
    t[READYAT] = now -- the claim deadline runs from when the client learns of it
    redis.call('ZADD', RDYAT, now, token)
    flags = flags + F_FIRST_READY
  end
  save(token, t)
  return {K_READY, 0, flags}
end
save(token, t)
return {K_WAITING, position(t), flags}

--- script: claim
-- ARGV: gen, token, now, ttl, grace, offerTimeout, pollInterval.
local gen, token, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local grace, offerTimeout = tonumber(ARGV[5]), tonumber(ARGV[6])
local t = load(token)
if not t then
  return reply(K_UNKNOWN, 0, 0)
end
if expired(t, now, tonumber(ARGV[4]), grace) then
  retire(token, t, now)
  return reply(K_UNKNOWN, 0, F_EVICTED)
end
if t[STATE] == READY and not leaseLive(gen, now) then
  return reply(FENCED, 0, 0)
end
local flags
flags, t = lapseIfDue(token, t, now, grace, offerTimeout)
if away(t) then
  t = present(token, t, now)
end
if t[STATE] == READY then
  if not leaseLive(gen, now) then
    return reply(FENCED, 0, flags)
  end
  admitReady(token, gen)
  return reply(K_ADMITTED, 0, flags)
end
t[LAST] = now
redis.call('ZADD', ACT, now, token)
if t[SEEN] == 0 then
  t[SEEN] = 1
  redis.call('ZREM', UNSEEN, token)
end
-- a reload is a poll in disguise: one per poll interval, no cookies re-sent; the page's own poll
-- just before is the room's doing, so it does not count against the visitor (POLLED 2: the last
-- accepted poll was a reload)
if t[POLLED] == 2 and now - t[LASTPOLL] < tonumber(ARGV[7]) then
  flags = flags + F_RATE_LIMITED
else
  t[LASTPOLL] = now
  t[POLLED] = 2
  t[COOKIES] = now
end
save(token, t)
return reply(K_WAITING, position(t), flags)

--- script: remove
-- ARGV: now, then pairs of token and ticket number (-1 = any). Retires each that is still in line.
local now = tonumber(ARGV[1])
local removed = 0
for i = 2, #ARGV, 2 do
  local token, want = ARGV[i], tonumber(ARGV[i + 1])
  local t = load(token)
  if t and (want < 0 or t[NUMBER] == want) then
    retire(token, t, now)
    removed = removed + 1
  end
end
return reply(removed, 0, 0)

--- script: promote
-- ARGV: token, target, move (1) or quote (0). Returns status, from, to, depth.
local token, target, move = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local t = load(token)
if not t then
  return {NOT_FOUND, 0, 0, 0}
end
if t[STATE] ~= WAITING then
  return {NOT_WAITING, 0, 0, 0}
end
local from = position(t)
local depth = redis.call('ZCARD', LINE)
if target >= from then
  return {0, from, from, depth}
end
if not move then
  return {0, from, target, depth}
end
local occupant = redis.call('ZRANGE', HEADS, target - 1, target - 1)[1]
dequeue(t, token)
joinTie(t, token, bandOf(occupant), tonumber(string.sub(occupant, 9, 24), 16))
return {0, from, position(t), depth}

--- script: rank
-- ARGV: token, rank. Returns 1 when the ticket passed someone, 0 when not, or an error status.
-- InMemoryLine.rank and placeBehind, step for step: the rank is recorded, then the ticket moves
-- past every lower recorded rank up to the nearest ticket ahead holding an equal or higher one
-- (restored ready tickets count as the highest), never splitting a tie. Only bands at least the
-- rank can hold such a ticket, so the walk back covers the ranked part of the line only.
local token, rank = ARGV[1], tonumber(ARGV[2])
local t = load(token)
if not t then
  return {NOT_FOUND}
end
if t[STATE] ~= WAITING then
  return {NOT_WAITING}
end
t[RANK] = rank
save(token, t)
local MAXRANKED = MAXBAND - 1
local floor = math.min(rank, MAXRANKED)
local me = memberOf(t, token)
local cursor = t[BAND] >= floor and '(' .. me or past(string.format('%08x', MAXBAND - floor))
local bound
while not bound do
  local ms = redis.call('ZRANGE', LINE, cursor, '-', 'BYLEX', 'REV', 'LIMIT', 0, 64)
  if #ms == 0 then
    break
  end
  for i = 1, #ms do
    if bandOf(ms[i]) == MAXBAND or load(string.sub(ms[i], 41))[RANK] >= rank then
      bound = ms[i]
      break
    end
  end
  cursor = '(' .. ms[#ms]
end
local pred = before('(' .. me)
local passes = pred ~= nil and (bound == nil or string.sub(pred, 1, 24) ~= string.sub(bound, 1, 24))
if not passes and floor <= t[BAND] then
  return {0}
end
-- Not passing anyone but rising above its band: the ticket keeps its position and leaves its tie
-- to stand ahead of its (lower-ranked) tie-mates, so its band covers its rank again.
local succ = after('(' .. me)
local leavesTie = not passes and succ ~= nil and string.sub(succ, 1, 24) == string.sub(me, 1, 24)
dequeue(t, token)
local nextg
if bound then
  nextg = after(past(string.sub(bound, 1, 24)))
else
  nextg = redis.call('ZRANGE', LINE, 0, 0)[1]
end
local upper = bound and math.min(bandOf(bound), MAXRANKED) or MAXRANKED
local band = floor
if nextg then
  local nb = bandOf(nextg)
  if nb < upper then
    band = math.min(upper, math.max(floor, nb + 1))
  else
    band = upper
  end
end
-- Keys are whole numbers: when the next group is in the same band, the rest of that band is
-- re-keyed behind the ticket, in its order.
local rest, restT = {}, {}
if nextg and bandOf(nextg) == band then
  rest = redis.call('ZRANGE', LINE, '[' .. nextg, past(string.format('%08x', MAXBAND - band)),
    'BYLEX')
end
for i = 1, #rest do
  restT[i] = load(string.sub(rest[i], 41))
  dequeue(restT[i], string.sub(rest[i], 41))
end
t[BAND] = band
t[PLACE] = redis.call('HINCRBY', META, 'counter', 1)
t[ORDER] = t[PLACE]
t[PROMOTED] = 0
save(token, t)
enqueue(t, token)
local oldPlace, place = nil, nil
for i = 1, #rest do
  local x = restT[i]
  if x[PLACE] ~= oldPlace then
    oldPlace = x[PLACE]
    place = redis.call('HINCRBY', META, 'counter', 1)
  end
  x[PLACE] = place
  save(string.sub(rest[i], 41), x)
  enqueue(x, string.sub(rest[i], 41))
end
return {(passes or leavesTie) and 1 or 0}

--- script: evict
-- ARGV: now, ttl, grace, offerTimeout, limit. One bounded reaper step, lapsed leases included.
-- Returns evicted, timedOut, whether more may be due.
local now, ttl, grace, offer = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
reapLeases(now)
local resumed = metaNum('resumed')
local evicted, timedOut, more = 0, 0, 0
-- Expired tickets are evicted whatever their state; a lapsed offer passes on (a TIMEOUT when its
-- client had been told) and its ticket waits again. Freed slots are handed on only at the end, and
-- only to live tickets: a slot never goes to a ticket this pass is about to reclaim.
local function sweep(key, span)
  if now - resumed < span then
    return -- the amnesty: nothing of this kind can be due yet
  end
  local due = redis.call('ZRANGEBYSCORE', key, '-inf', now - span, 'LIMIT', 0, limit)
  for i = 1, #due do
    local t = load(due[i])
    if not t then
      redis.call('ZREM', key, due[i])
    elseif expired(t, now, ttl, grace) then
      retire(due[i], t, now, true)
      evicted = evicted + 1
    elseif lapsed(t, now, grace, offer) then
      if lapse(due[i], t, 1) then
        timedOut = timedOut + 1
      end
    end
  end
  if #due >= limit then
    more = 1
  end
end
sweep(ACT, ttl)
if grace > 0 and grace < ttl then
  sweep(UNSEEN, grace)
end
sweep(RDYAT, offer)
sweep(AOFF, awayWindow(grace, offer))
evicted = evicted + rebalance(now, ttl, grace)
return reply(evicted, timedOut, more)

--- script: capacity
-- ARGV: capacity, now.
redis.call('HSET', META, 'cap', ARGV[1])
rebalance(tonumber(ARGV[2]))
return reply(0, 0, 0)

--- script: allowance
-- ARGV: 'set' or 'add', n ('inf' = unlimited, for set), max (for add), now. Sets the allowance, or
-- adds n to a limited one up to max; then hands free slots over as far as it goes. Returns the
-- allowance it found (-1 = unlimited): Line.replaceAllowance.
local op, now = ARGV[1], tonumber(ARGV[4])
local was = allowance() or -1
if op == 'set' then
  if ARGV[2] == 'inf' then
    redis.call('HDEL', META, 'allow')
  else
    redis.call('HSET', META, 'allow', ARGV[2])
  end
else
  local a, n, max = allowance(), tonumber(ARGV[2]), tonumber(ARGV[3])
  if a and a < max and n > 0 then
    redis.call('HSET', META, 'allow', int(math.min(max, a + n)))
  end
end
rebalance(now)
return reply(was, 0, 0)

--- script: draw
-- ARGV: for each new position k, the arrival index (0-based) of the ticket taking it. The pre-sale
-- draw: the waiting tickets that never moved (band 0, holding their place: not promoted), in
-- arrival order, get their own places back in the drawn order. Returns the group's size; when that
-- is not the number of indexes given, nothing moves and the caller draws again for that size.
local band0 = redis.call('ZRANGE', LINE, '[' .. group(0, 0), '+', 'BYLEX')
-- A promotion always takes a fresh order, above its place, so a member whose order equals its
-- place holds it; only the others need their record read to tell.
local members, places = {}, {}
for i = 1, #band0 do
  local place, order = string.sub(band0[i], 9, 24), string.sub(band0[i], 25, 40)
  local token = string.sub(band0[i], 41)
  if place == order or load(token)[PROMOTED] == 0 then
    members[#members + 1] = token
    places[#places + 1] = tonumber(place, 16)
  end
end
if #members ~= #ARGV then
  return {#members}
end
local tickets = {}
for i = 1, #members do
  tickets[i] = load(members[i])
end
local seen = {}
for k = 1, #ARGV do
  local i = tonumber(ARGV[k])
  if not i or i < 0 or i >= #members or seen[i] then
    return redis.error_reply('the draw is not a permutation')
  end
  seen[i] = true
end
for i = 1, #members do
  dequeue(tickets[i], members[i])
end
-- Clients tied to a group member's place stay tied to that place, in their order, and whoever
-- draws it holds it behind them: it takes a fresher order.
for k = 1, #ARGV do
  local i = tonumber(ARGV[k]) + 1
  local t = tickets[i]
  t[PLACE] = places[k]
  if redis.call('HEXISTS', GSIZE, group(0, t[PLACE])) == 1 then
    t[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
  end
  save(members[i], t)
  enqueue(t, members[i])
end
return {#members}

--- script: counters
return reply(0, 0, 0)

--- script: register
-- ARGV: instance name, now, lease ttl. Starts a new lease generation for this instance.
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local gen = int(redis.call('HINCRBY', META, 'gen', 1))
if redis.call('HEXISTS', META, 'hv') == 0 then
  -- The first instance that keeps presence: everyone queued before it counts as present.
  if redis.call('EXISTS', LINE) == 1 then
    redis.call('ZUNIONSTORE', HERE, 1, LINE)
  end
  redis.call('HSET', META, 'hv', 1)
end
redis.call('ZADD', LEASES, now + ttl, gen)
redis.call('HSET', HELD, gen, 0)
redis.call('HSET', OWNERS, gen, ARGV[1])
reapLeases(now)
return reply(tonumber(gen), 0, 0)

--- script: heartbeat
-- ARGV: gen, slots held (as the instance counts them), now, lease ttl. Renews the lease,
-- reconciles its count (a release lost to an outage comes back here) and reaps lapsed leases.
local gen, want, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if not leaseLive(gen, now) then
  reapLeases(now)
  return reply(FENCED, 0, 0)
end
local had = tonumber(redis.call('HGET', HELD, gen)) or 0
if want ~= had then
  redis.call('HSET', HELD, gen, int(want))
  redis.call('HINCRBY', META, 'inflight', want - had)
end
redis.call('ZADD', LEASES, now + ttl, gen)
reapLeases(now)
rebalance(now)
return reply(0, want - had, 0)

--- script: resume
-- ARGV: now, lease ttl. After an outage: nobody's clock runs from before now, and every live
-- lease gets one lease ttl to be renewed before it lapses.
local now, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
if metaNum('resumed') < now then
  redis.call('HSET', META, 'resumed', int(now))
end
local due = redis.call('ZRANGEBYSCORE', LEASES, '-inf', '(' .. int(now + ttl))
for i = 1, #due do
  redis.call('ZADD', LEASES, now + ttl, due[i])
end
return reply(#due, 0, 0)

--- script: scan
-- ARGV: mode, cursor, n. Reads up to n tickets in line order: mode 'r' continues the ready list
-- after score cursor (then the line), mode 'l' continues the line after member cursor ('' = the
-- start). Returns next mode ('end' when done), next cursor, then 16 fields per ticket.
local mode, cursor, n = ARGV[1], ARGV[2], tonumber(ARGV[3])
local out = {'end', ''}
local count = 0
if mode == 'r' then
  local rs = redis.call('ZRANGEBYSCORE', READYQ, '(' .. cursor, '+inf', 'WITHSCORES', 'LIMIT', 0, n)
  for i = 1, #rs, 2 do
    fields(out, rs[i], load(rs[i]), 0)
    out[2] = rs[i + 1]
    count = count + 1
  end
  if count >= n then
    out[1] = 'r'
    return out
  end
  cursor = ''
end
local ms
if cursor == '' then
  ms = redis.call('ZRANGE', LINE, 0, n - count - 1)
else
  ms = redis.call('ZRANGE', LINE, '(' .. cursor, '+', 'BYLEX', 'LIMIT', 0, n - count)
end
local pos, prev = 0, nil
for i = 1, #ms do
  local g = string.sub(ms[i], 1, 24)
  if prev == nil then
    pos = redis.call('ZRANK', HEADS, g) + 1
  elseif g ~= prev then
    pos = pos + 1
  end
  prev = g
  local token = string.sub(ms[i], 41)
  fields(out, token, load(token), pos)
  out[2] = ms[i]
end
if #ms >= n - count and #ms > 0 then
  out[1] = 'l'
end
return out

--- script: ticket
-- ARGV: token. The 16 fields of one ticket, or an empty reply.
local token = ARGV[1]
local t = load(token)
local out = {}
if t then
  fields(out, token, t, t[STATE] == READY and 0 or position(t))
end
return out

--- script: stage
-- KEYS[STAGED + 1..7]: staging tk, line, heads, gsize, act, unseen, passes. ARGV: now, then 17
-- fields per ticket (token, band, place, order, rank, issuedAt, lastActivity, lastPoll, polled,
-- seen, hasPass, clientKey, promoted, number, and the band, place and order it was exported with).
-- Adds tickets to a restore's staging keys, away until their client polls; returns -1 on a
-- duplicate token. The helpers above write through these upvalues, so point them at the staging
-- keys.
TK, LINE, HEADS, GSIZE, ACT, UNSEEN = KEYS[STAGED + 1], KEYS[STAGED + 2], KEYS[STAGED + 3],
  KEYS[STAGED + 4], KEYS[STAGED + 5], KEYS[STAGED + 6]
local now = tonumber(ARGV[1])
for i = 2, #ARGV, 17 do
  local token = ARGV[i]
  local band, place, order = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local xband, xplace, xorder = tonumber(ARGV[i + 14]), tonumber(ARGV[i + 15]),
    tonumber(ARGV[i + 16])
  local seen = tonumber(ARGV[i + 9])
  local t = {tonumber(ARGV[i + 13]), band, place, order, tonumber(ARGV[i + 4]),
    tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6]), tonumber(ARGV[i + 7]), now, 0, WAITING, seen,
    tonumber(ARGV[i + 8]), tonumber(ARGV[i + 10]), tonumber(ARGV[i + 12]), 0, 1, ARGV[i + 11], 1}
  if band == CALLED then
    t[SHOWNBAND], t[SHOWNPLACE], t[SHOWNORDER] = xband, xplace, xorder
  end
  if redis.call('HSETNX', TK, token, cmsgpack.pack(t)) == 0 then
    return {-1}
  end
  enqueue(t, token)
  redis.call('ZADD', ACT, t[LAST], token)
  if seen == 0 then
    redis.call('ZADD', UNSEEN, t[ISSUED], token)
  end
end
for k = STAGED + 1, STAGED + 7 do
  redis.call('PEXPIRE', KEYS[k], 3600000)
end
return {0}

--- script: stagepasses
-- KEYS[STAGED + 1..7] as for stage. ARGV: pairs of token and expiresAt.
for i = 1, #ARGV, 2 do
  redis.call('ZADD', KEYS[STAGED + 7], ARGV[i + 1], ARGV[i])
end
redis.call('PEXPIRE', KEYS[STAGED + 7], 3600000)
return {0}

--- script: commit
-- KEYS[STAGED + 1..7] as for stage. ARGV: now, the largest place or order restored. Swaps the
-- staging keys in, all at once, unless the line was used meanwhile (returns -1). Every restored
-- ticket is away; the first in line are offered the free slots.
local now, maxKey = tonumber(ARGV[1]), tonumber(ARGV[2])
if metaNum('used') == 1 then
  for k = STAGED + 1, STAGED + 7 do
    redis.call('DEL', KEYS[k])
  end
  return reply(-1, 0, 0)
end
local live = {TK, LINE, HEADS, GSIZE, ACT, UNSEEN, PASSES}
for k = 1, 7 do
  if redis.call('EXISTS', KEYS[STAGED + k]) == 1 then
    redis.call('RENAME', KEYS[STAGED + k], live[k])
    redis.call('PERSIST', live[k])
  else
    redis.call('DEL', live[k])
  end
end
redis.call('DEL', READYQ, RDYAT, HERE, AOFF)
if maxKey > metaNum('counter') then
  redis.call('HSET', META, 'counter', int(maxKey))
end
redis.call('HSET', META, 'used', 1)
redis.call('HSET', META, 'hv', 1)
offerFirst(now)
return reply(redis.call('HLEN', TK), 0, 0)

--- script: abort
-- KEYS[STAGED + 1..7] as for stage. Drops a restore's staging keys.
for k = STAGED + 1, STAGED + 7 do
  redis.call('DEL', KEYS[k])
end
return {0}

--- script: pass
-- ARGV: token, expiresAt. Records a VIP pass. The line is used from then on, so a restore, which
-- replaces every pass, is refused rather than dropping it.
redis.call('HSET', META, 'used', 1)
redis.call('ZADD', PASSES, ARGV[2], ARGV[1])
return reply(0, 0, 0)

--- script: leave
-- ARGV: gen, now. A clean shutdown: the instance's lease ends and its slots return at once.
local gen, now = ARGV[1], tonumber(ARGV[2])
if redis.call('ZSCORE', LEASES, gen) then
  dropLease(gen)
  rebalance(now)
end
return reply(0, 0, 0)

--- script: check
-- The storage invariants, for tests: returns a message per broken one (none when all hold).
local broken = {}
local function need(ok, what)
  if not ok then
    broken[#broken + 1] = what
  end
end
local waiting, readyN, tickets = redis.call('ZCARD', LINE), redis.call('ZCARD', READYQ),
  redis.call('HLEN', TK)
need(tickets == waiting + readyN, 'tickets ' .. tickets .. ' != waiting + ready')
need(redis.call('ZCARD', RDYAT) == readyN, 'claim deadlines != ready')
need(redis.call('ZCARD', ACT) == tickets, 'activity index != tickets')
need(redis.call('ZCARD', HEADS) == redis.call('HLEN', GSIZE), 'groups != group sizes')
local members = 0
local sizes = redis.call('HVALS', GSIZE)
for i = 1, #sizes do
  members = members + tonumber(sizes[i])
end
need(members == waiting, 'group sizes add up to ' .. members .. ', not ' .. waiting)
local held = 0
local hs = redis.call('HVALS', HELD)
for i = 1, #hs do
  held = held + tonumber(hs[i])
end
need(held == metaNum('inflight'), 'held ' .. held .. ' != in flight ' .. metaNum('inflight'))
need(redis.call('ZCARD', LEASES) == redis.call('HLEN', HELD), 'leases != held counts')
local here = redis.call('ZCARD', HERE)
local allow = allowance()
need(here == 0 or allow == 0 or freeSlots() <= 0, 'a slot is free while present clients wait')
need(metaNum('inflight') >= 0, 'negative in flight')
local present = 0
for _, m in ipairs(redis.call('ZRANGE', LINE, 0, 9999)) do
  local t = load(string.sub(m, 41))
  need(t ~= nil and t[STATE] == WAITING and memberOf(t, string.sub(m, 41)) == m, 'bad waiter')
  if t and not away(t) then
    present = present + 1
    need(redis.call('ZSCORE', HERE, m) ~= false, 'a present waiter is missing from here')
  end
end
need(waiting > 10000 or present == here, 'here ' .. here .. ' != present waiters ' .. present)
for _, token in ipairs(redis.call('ZRANGE', AOFF, 0, -1)) do
  local t = load(token)
  need(t ~= nil and t[STATE] == READY and away(t) and t[TOLD] == 0, 'bad offer to an away client')
end
for _, token in ipairs(redis.call('ZRANGE', READYQ, 0, -1)) do
  local t = load(token)
  need(t ~= nil and (away(t) == (redis.call('ZSCORE', AOFF, token) ~= false)), 'aoff != away offers')
end
return broken
