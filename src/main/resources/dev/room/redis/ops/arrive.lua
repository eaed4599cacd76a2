-- arrive: mirrors RedisLine.arrive / InMemoryLine.arrive.
-- KEYS: the room's 15 (RoomKeys.all, named in lib/keys.lua).
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
