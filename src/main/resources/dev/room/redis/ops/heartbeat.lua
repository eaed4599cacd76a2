-- heartbeat: mirrors InstanceLease.heartbeat (RedisLine.beat)
--   / none (an in-memory line has one instance).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
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
