-- enter: mirrors RedisLine.tryEnter / InMemoryLine.tryEnter.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
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
