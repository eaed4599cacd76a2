-- register: mirrors InstanceLease.register / none (an in-memory line has one instance).
-- KEYS: the room's 15 (RoomKeys.all, named in lib/keys.lua).
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
