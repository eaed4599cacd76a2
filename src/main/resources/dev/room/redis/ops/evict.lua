-- evict: mirrors RedisLine.evict / InMemoryLine.evict.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
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
    elseif key == ACT then
      -- A batched poll leaves act behind the record (ops/polls.lua): the ticket was heard from
      -- since, at LAST, which is within the TTL (the amnesty is over: see above).
      redis.call('ZADD', ACT, t[LAST], due[i])
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
redis.call('ZREMRANGEBYSCORE', MOVED, '-inf', now - ttl) -- a moved token is told for one TTL
evicted = evicted + rebalance(now, ttl, grace)
return reply(evicted, timedOut, more)
