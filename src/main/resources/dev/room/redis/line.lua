-- The line's state transitions on Redis, one script per transition.
--
-- LuaScripts splits this file at the "--- script:" markers and prepends this common part to each
-- section, so every transition is one EVALSHA and runs atomically. The rules are the in-memory
-- line's (dev.room.engine.InMemoryLine): only the storage differs.
--
-- Keys, all in the room's hash tag so a room lives on one cluster shard (KEYS[1..13]):
--   meta    hash  cap, inflight, counter, rseq, gen, used, resumed
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
--
-- Free slots are derived, never stored: cap - inflight - #ready. inflight is the sum of held.
-- Times are epoch millis from the callers' clocks; integers stay exact below 2^53.

local META, TK, LINE, HEADS, GSIZE, READYQ, RDYAT, ACT, UNSEEN, PASSES, LEASES, HELD, OWNERS =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10],
  KEYS[11], KEYS[12], KEYS[13]

-- Ticket record fields.
local NUMBER, BAND, PLACE, ORDER, RANK, ISSUED, LAST, LASTPOLL, COOKIES, READYAT, STATE = 1, 2, 3,
  4, 5, 6, 7, 8, 9, 10, 11
local SEEN, POLLED, HASPASS, PROMOTED, TOLD, RESEND, CLIENTKEY = 12, 13, 14, 15, 16, 17, 18
local WAITING, READY = 1, 2

-- Outcome kinds and flags (decoded by RedisLine into dev.room.spi.Outcome).
local K_UNKNOWN, K_WAITING, K_READY, K_ADMITTED, K_REJECTED = 0, 1, 2, 3, 4
local F_RATE_LIMITED, F_REFRESH, F_EVICTED, F_TIMED_OUT, F_PROMOTED, F_FIRST_READY = 1, 2, 4, 8,
  16, 32
local FENCED, NOT_FOUND, NOT_WAITING = -1, -2, -3
local MAXBAND = 2147483647

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

local function enqueue(t, token)
  local g = group(t[BAND], t[PLACE])
  redis.call('ZADD', LINE, 0, g .. string.format('%016x', t[ORDER]) .. token)
  if redis.call('HINCRBY', GSIZE, g, 1) == 1 then
    redis.call('ZADD', HEADS, 0, g)
  end
end

local function dequeue(t, token)
  local g = group(t[BAND], t[PLACE])
  redis.call('ZREM', LINE, memberOf(t, token))
  if redis.call('HINCRBY', GSIZE, g, -1) <= 0 then
    redis.call('HDEL', GSIZE, g)
    redis.call('ZREM', HEADS, g)
  end
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

-- Hands free slots to the first waiters, as far as the allowance goes: each becomes ready, holding
-- a reserved slot.
local function rebalance(now)
  local free = freeSlots()
  local allow = allowance()
  if allow then
    free = math.min(free, allow)
  end
  local handed = 0
  while free > 0 do
    local first = redis.call('ZRANGE', LINE, 0, 0)[1]
    if not first then
      break
    end
    local token = string.sub(first, 41)
    local t = load(token)
    dequeue(t, token)
    t[STATE] = READY
    t[READYAT] = now
    save(token, t)
    redis.call('ZADD', READYQ, redis.call('HINCRBY', META, 'rseq', 1), token)
    redis.call('ZADD', RDYAT, now, token)
    free = free - 1
    handed = handed + 1
  end
  if allow and handed > 0 then
    redis.call('HINCRBY', META, 'allow', -handed)
  end
end

-- Ends a ticket that will never be admitted; a ready one's reserved slot moves on.
local function retire(token, t, now)
  redis.call('HDEL', TK, token)
  redis.call('ZREM', ACT, token)
  redis.call('ZREM', UNSEEN, token)
  if t[STATE] == WAITING then
    dequeue(t, token)
  else
    redis.call('ZREM', READYQ, token)
    redis.call('ZREM', RDYAT, token)
    rebalance(now)
  end
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

-- Policy.expired, plus the amnesty after an outage: no clock runs from before 'resumed'.
local function expired(t, now, ttl, grace, offer)
  local resumed = metaNum('resumed')
  if t[STATE] == READY and now - math.max(t[READYAT], resumed) >= offer then
    return true
  end
  if now - math.max(t[LAST], resumed) >= ttl then
    return true
  end
  return t[SEEN] == 0 and grace > 0 and grace < ttl and now - math.max(t[ISSUED], resumed) >= grace
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

-- The fields of a ticket as the admin reads and the export see them.
local function fields(out, token, t, pos)
  local n = #out
  out[n + 1] = token
  out[n + 2] = pos
  out[n + 3] = t[BAND]
  out[n + 4] = t[PLACE]
  out[n + 5] = t[ORDER]
  out[n + 6] = t[RANK]
  out[n + 7] = t[ISSUED]
  out[n + 8] = t[LAST]
  out[n + 9] = t[LASTPOLL]
  out[n + 10] = t[POLLED]
  out[n + 11] = t[SEEN]
  out[n + 12] = t[HASPASS]
  out[n + 13] = t[CLIENTKEY]
  out[n + 14] = t[NUMBER]
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
local t = {n, 0, n, n, 0, now, now, 0, now, 0, WAITING, 0, 0, toFront and 1 or 0, 0, 0, 0, key}
local flags = 0
if toFront then
  local front = redis.call('ZRANGE', HEADS, 0, 0)[1]
  if front then
    t[BAND] = MAXBAND - tonumber(string.sub(front, 1, 8), 16)
    t[PLACE] = tonumber(string.sub(front, 9, 24), 16)
    t[PROMOTED] = 1
    flags = F_PROMOTED
  end
end
save(token, t)
enqueue(t, token)
redis.call('ZADD', ACT, now, token)
redis.call('ZADD', UNSEEN, now, token)
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
local t = load(token)
if not t then
  return {K_UNKNOWN, 0, 0}
end
if expired(t, now, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[7])) then
  local flag = t[STATE] == READY and F_TIMED_OUT or F_EVICTED
  retire(token, t, now)
  return {K_UNKNOWN, 0, flag}
end
local flags = 0
if t[POLLED] == 1 and now - t[LASTPOLL] < tonumber(ARGV[5]) then
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
-- ARGV: gen, token, now, ttl, grace, offerTimeout.
local gen, token, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local t = load(token)
if not t then
  return reply(K_UNKNOWN, 0, 0)
end
if expired(t, now, tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])) then
  local flag = t[STATE] == READY and F_TIMED_OUT or F_EVICTED
  retire(token, t, now)
  return reply(K_UNKNOWN, 0, flag)
end
if t[STATE] == READY then
  if not leaseLive(gen, now) then
    return reply(FENCED, 0, 0)
  end
  admitReady(token, gen)
  return reply(K_ADMITTED, 0, 0)
end
t[LAST] = now
redis.call('ZADD', ACT, now, token)
if t[SEEN] == 0 then
  t[SEEN] = 1
  redis.call('ZREM', UNSEEN, token)
end
t[COOKIES] = now
save(token, t)
return reply(K_WAITING, position(t), 0)

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
t[BAND] = MAXBAND - tonumber(string.sub(occupant, 1, 8), 16)
t[PLACE] = tonumber(string.sub(occupant, 9, 24), 16)
t[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
t[PROMOTED] = 1
save(token, t)
enqueue(t, token)
return {0, from, position(t), depth}

--- script: rank
-- ARGV: token, rank. Returns 1 when the ticket moved, 0 when not, or an error status.
local token, rank = ARGV[1], tonumber(ARGV[2])
local t = load(token)
if not t then
  return {NOT_FOUND}
end
if t[STATE] ~= WAITING then
  return {NOT_WAITING}
end
t[RANK] = rank
if rank <= t[BAND] then
  save(token, t)
  return {0}
end
dequeue(t, token)
t[BAND] = rank
t[PLACE] = redis.call('HINCRBY', META, 'counter', 1)
t[ORDER] = t[PLACE]
save(token, t)
enqueue(t, token)
return {1}

--- script: evict
-- ARGV: now, ttl, grace, offerTimeout, limit. One bounded reaper step, lapsed leases included.
-- Returns evicted, timedOut, whether more may be due.
local now, ttl, grace, offer = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
reapLeases(now)
local resumed = metaNum('resumed')
local evicted, timedOut, more = 0, 0, 0
local function sweep(key, span)
  if now - resumed < span then
    return -- the amnesty: nothing of this kind can be due yet
  end
  local due = redis.call('ZRANGEBYSCORE', key, '-inf', now - span, 'LIMIT', 0, limit)
  for i = 1, #due do
    local t = load(due[i])
    if t then
      if t[STATE] == READY then
        timedOut = timedOut + 1
      else
        evicted = evicted + 1
      end
      retire(due[i], t, now)
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
return reply(evicted, timedOut, more)

--- script: capacity
-- ARGV: capacity, now.
redis.call('HSET', META, 'cap', ARGV[1])
rebalance(tonumber(ARGV[2]))
return reply(0, 0, 0)

--- script: allowance
-- ARGV: 'set' or 'add', n ('inf' = unlimited, for set), max (for add), now. Sets the allowance, or
-- adds n to a limited one up to max; then hands free slots over as far as it goes.
local op, now = ARGV[1], tonumber(ARGV[4])
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
return reply(0, 0, 0)

--- script: draw
-- ARGV: for each new position k, the arrival index (0-based) of the ticket taking it. The pre-sale
-- draw: the waiting tickets that never moved (band 0, place = order), in arrival order,
-- get their own places back in the drawn order. Returns the group's size; when that is not the
-- number of indexes given, nothing moves and the caller draws again for that size.
local band0 = redis.call('ZRANGE', LINE, '[' .. group(0, 0), '+', 'BYLEX')
local members, places, isPlace = {}, {}, {}
for i = 1, #band0 do
  local place, order = string.sub(band0[i], 9, 24), string.sub(band0[i], 25, 40)
  if place == order then
    members[#members + 1] = string.sub(band0[i], 41)
    places[#places + 1] = tonumber(place, 16)
    isPlace[place] = true
  end
end
if #members ~= #ARGV then
  return {#members}
end
local seen = {}
for k = 1, #ARGV do
  local i = tonumber(ARGV[k])
  if not i or i < 0 or i >= #members or seen[i] then
    return redis.error_reply('the draw is not a permutation')
  end
  seen[i] = true
end
-- Clients tied to a group member's place stay tied to that place, behind whoever draws it.
local tied = {}
for i = 1, #band0 do
  local place, order = string.sub(band0[i], 9, 24), string.sub(band0[i], 25, 40)
  if place ~= order and isPlace[place] then
    tied[#tied + 1] = string.sub(band0[i], 41)
  end
end
local tickets, tiedTickets = {}, {}
for i = 1, #members do
  tickets[i] = load(members[i])
  dequeue(tickets[i], members[i])
end
for i = 1, #tied do
  tiedTickets[i] = load(tied[i])
  dequeue(tiedTickets[i], tied[i])
end
for k = 1, #ARGV do
  local i = tonumber(ARGV[k]) + 1
  tickets[i][PLACE] = places[k]
  save(members[i], tickets[i])
  enqueue(tickets[i], members[i])
end
for i = 1, #tied do
  tiedTickets[i][ORDER] = redis.call('HINCRBY', META, 'counter', 1)
  save(tied[i], tiedTickets[i])
  enqueue(tiedTickets[i], tied[i])
end
return {#members}

--- script: counters
return reply(0, 0, 0)

--- script: register
-- ARGV: instance name, now, lease ttl. Starts a new lease generation for this instance.
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local gen = int(redis.call('HINCRBY', META, 'gen', 1))
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
-- start). Returns next mode ('end' when done), next cursor, then 14 fields per ticket.
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
-- ARGV: token. The 14 fields of one ticket, or an empty reply.
local token = ARGV[1]
local t = load(token)
local out = {}
if t then
  fields(out, token, t, t[STATE] == READY and 0 or position(t))
end
return out

--- script: stage
-- KEYS[14..20]: staging tk, line, heads, gsize, act, unseen, passes. ARGV: now, then 12 fields per
-- ticket (token, band, place, order, rank, issuedAt, lastActivity, lastPoll, polled, seen,
-- hasPass, clientKey). Adds tickets to a restore's staging keys; returns -1 on a duplicate token.
-- The helpers above write through these upvalues, so point them at the staging keys.
TK, LINE, HEADS, GSIZE, ACT, UNSEEN = KEYS[14], KEYS[15], KEYS[16], KEYS[17], KEYS[18], KEYS[19]
local now = tonumber(ARGV[1])
for i = 2, #ARGV, 12 do
  local token = ARGV[i]
  local band, place, order = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local seen = tonumber(ARGV[i + 9])
  local t = {0, band, place, order, tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]),
    tonumber(ARGV[i + 6]), tonumber(ARGV[i + 7]), now, 0, WAITING, seen, tonumber(ARGV[i + 8]),
    tonumber(ARGV[i + 10]), (band ~= 0 or place ~= order) and 1 or 0, 0, 1, ARGV[i + 11]}
  if redis.call('HSETNX', TK, token, cmsgpack.pack(t)) == 0 then
    return {-1}
  end
  enqueue(t, token)
  redis.call('ZADD', ACT, t[LAST], token)
  if seen == 0 then
    redis.call('ZADD', UNSEEN, t[ISSUED], token)
  end
end
for k = 14, 20 do
  redis.call('PEXPIRE', KEYS[k], 3600000)
end
return {0}

--- script: stagepasses
-- KEYS[14..20] as for stage. ARGV: pairs of token and expiresAt.
for i = 1, #ARGV, 2 do
  redis.call('ZADD', KEYS[20], ARGV[i + 1], ARGV[i])
end
redis.call('PEXPIRE', KEYS[20], 3600000)
return {0}

--- script: commit
-- KEYS[14..20] as for stage. ARGV: now, the largest place or order restored. Swaps the staging
-- keys in, all at once, unless the line was used meanwhile (returns -1).
local now, maxKey = tonumber(ARGV[1]), tonumber(ARGV[2])
if metaNum('used') == 1 then
  for k = 14, 20 do
    redis.call('DEL', KEYS[k])
  end
  return reply(-1, 0, 0)
end
local live = {TK, LINE, HEADS, GSIZE, ACT, UNSEEN, PASSES}
for k = 1, 7 do
  if redis.call('EXISTS', KEYS[13 + k]) == 1 then
    redis.call('RENAME', KEYS[13 + k], live[k])
    redis.call('PERSIST', live[k])
  else
    redis.call('DEL', live[k])
  end
end
redis.call('DEL', READYQ, RDYAT)
if maxKey > metaNum('counter') then
  redis.call('HSET', META, 'counter', int(maxKey))
end
redis.call('HSET', META, 'used', 1)
rebalance(now)
return reply(redis.call('HLEN', TK), 0, 0)

--- script: abort
-- KEYS[14..20] as for stage. Drops a restore's staging keys.
for k = 14, 20 do
  redis.call('DEL', KEYS[k])
end
return {0}

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
local allow = allowance()
need(waiting == 0 or allow == 0 or freeSlots() <= 0, 'a slot is free while clients wait and the allowance allows')
need(metaNum('inflight') >= 0, 'negative in flight')
for _, m in ipairs(redis.call('ZRANGE', LINE, 0, 99)) do
  local t = load(string.sub(m, 41))
  need(t ~= nil and t[STATE] == WAITING and memberOf(t, string.sub(m, 41)) == m, 'bad waiter')
end
return broken
