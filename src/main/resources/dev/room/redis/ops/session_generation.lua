-- session_generation: mirrors RedisSessionStore.newGeneration / InMemorySessionStore.newGeneration.
-- KEYS: the room's 18, then ses, sest, sesx (RoomKeys.sessions, named in lib/sessions.lua).
-- ARGV: now. A new sale generation: every session ends and its slot returns, in one step. Reply:
-- the new generation, then the line's counters, then the ended sessions' ids.
local now = tonumber(ARGV[1])
local g = redis.call('HINCRBY', META, 'sgen', 1)
local ids = redis.call('HKEYS', SES)
for i = 1, #ids do
  sessionEnd(ids[i], sessionLoad(ids[i]))
end
if #ids > 0 then
  rebalance(now)
end
local r = reply(g, 0, 0)
for i = 1, #ids do
  r[#r + 1] = ids[i]
end
return r
