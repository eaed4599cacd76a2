-- absent: mirrors RedisLine.lapseAbsent / InMemoryLine.lapseAbsent (issue 16, keep the origin busy).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: now, presenceWindow. Puts the window in force (0 = off) and lapses each offer not yet told
-- whose client was silent for it, then hands free slots on. Returns how many lapsed.
local now = tonumber(ARGV[1])
local n = lapseAbsent(now, tonumber(ARGV[2]))
rebalance(now)
return reply(n, 0, 0)
