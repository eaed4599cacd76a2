-- The serving window: free slots, the allowance, offers and the hand-over of freed slots.

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

-- Defined in lib/retire.lua: rebalance and retire call each other.
local retire

-- Hands free slots to the first present waiters, as far as the allowance goes: each becomes
-- ready, holding a reserved slot. With ttl given (the reaper), a present waiter found expired at
-- the head is retired instead; returns how many were. Then, as in memory (Retirement), a waiter
-- silent for the presence window (meta 'pw') is passed over: away, at its place, until heard from.
local function rebalance(now, ttl, grace)
  local free = freeSlots()
  local allow = allowance()
  if allow then
    free = math.min(free, allow)
  end
  local handed, retired = 0, 0
  local pw = metaNum('pw') -- the presence window (Line.lapseAbsent); 0 = off
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
    elseif pw > 0 and now - t[LAST] >= pw then
      -- absent (issue 16): silent for the window, passed over; it keeps its place
      t[AWAY] = 1
      save(token, t)
      redis.call('ZREM', HERE, first)
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
