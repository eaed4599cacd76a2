-- resume: mirrors RedisLine.beat / none (an in-memory line has no outage).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
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
