-- capacity: mirrors RedisLine.setCapacity / InMemoryLine.setCapacity.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: capacity, now.
redis.call('HSET', META, 'cap', ARGV[1])
rebalance(tonumber(ARGV[2]))
return reply(0, 0, 0)
