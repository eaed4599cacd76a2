-- counters: mirrors RedisLine.refresh / none (InMemoryLine reads its own fields).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: none.
return reply(0, 0, 0)
