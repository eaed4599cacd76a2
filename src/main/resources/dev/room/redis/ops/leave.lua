-- leave: mirrors InstanceLease.leave (RedisLine.close) / InMemoryLine.close.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: gen, now. A clean shutdown: the instance's lease ends and its slots return at once.
local gen, now = ARGV[1], tonumber(ARGV[2])
if redis.call('ZSCORE', LEASES, gen) then
  dropLease(gen)
  rebalance(now)
end
return reply(0, 0, 0)
