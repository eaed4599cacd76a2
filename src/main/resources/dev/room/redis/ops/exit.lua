-- exit: mirrors RedisLine.exit (InstanceLease.release) / InMemoryLine.exit.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
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
