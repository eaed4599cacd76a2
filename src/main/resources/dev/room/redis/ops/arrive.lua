-- arrive: mirrors RedisLine.arrive / InMemoryLine.arrive.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: gen, token, clientKey, toFront, now, maxQueueDepth; with an identity also its prehash, a
-- candidate salt, ttl, grace, offerTimeout (RedisLine.arrive with an identity).
local gen, token, key, toFront = ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1'
local now, maxDepth = tonumber(ARGV[5]), tonumber(ARGV[6])
if not leaseLive(gen, now) then
  return reply(FENCED, 0, 0)
end
redis.call('HSET', META, 'used', 1)
-- One place per identity, decided in this step (TicketDesk.arrive): a live place the identity
-- holds moves to this token and is seen as a reload from it sees it; an expired one is retired.
local id
local evicted = 0 -- F_EVICTED when the identity's expired place was retired here
if ARGV[7] and ARGV[7] ~= '' then
  id = identityOf(ARGV[7], ARGV[8])
  local held = redis.call('HGET', IDS, id)
  local h = held and load(held)
  local grace, offerTimeout = tonumber(ARGV[10]), tonumber(ARGV[11])
  if h and expired(h, now, tonumber(ARGV[9]), grace) then
    retire(held, h, now)
    evicted = F_EVICTED
  elseif h then
    if redis.call('HEXISTS', TK, token) == 1 then
      return reply(K_UNKNOWN, 0, 0)
    end
    rekey(held, token, h, now)
    local flags
    flags, h = lapseIfDue(token, h, now, grace, offerTimeout)
    if away(h) then
      h = present(token, h, now)
    end
    if h[STATE] == READY then
      admitReady(token, gen)
      return reply(K_ADMITTED, 0, flags + F_REJOINED)
    end
    h[LAST] = now
    redis.call('ZADD', ACT, now, token)
    if h[SEEN] == 0 then
      h[SEEN] = 1
      redis.call('ZREM', UNSEEN, token)
    end
    h[LASTPOLL] = now
    h[POLLED] = 2
    h[COOKIES] = now
    save(token, h)
    return reply(K_WAITING, position(h), flags + F_REJOINED)
  elseif held then
    redis.call('HDEL', IDS, id)
  end
end
if maxDepth > 0 and redis.call('ZCARD', LINE) >= maxDepth then
  return reply(K_REJECTED, 0, evicted)
end
if redis.call('HEXISTS', TK, token) == 1 then
  return reply(K_UNKNOWN, 0, evicted)
end
local n = redis.call('HINCRBY', META, 'counter', 1)
-- Callers read their clocks before this step, so an arrival placed later may carry an earlier
-- time: issuedAt is this step's time, never earlier than the arrival ahead (InMemoryLine.arrive).
local issued = math.max(now, metaNum('issued'))
redis.call('HSET', META, 'issued', int(issued))
local t = {n, 0, n, n, 0, issued, now, 0, now, 0, WAITING, 0, 0, toFront and 1 or 0, 0, 0, 0, key}
if id then
  t[AWAY], t[SHOWNBAND], t[SHOWNPLACE], t[SHOWNORDER], t[IDENTITY] = 0, false, false, false, id
  redis.call('HSET', IDS, id, token)
end
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
  return reply(K_ADMITTED, 0, evicted)
end
return reply(K_WAITING, position(t), flags + evicted)
