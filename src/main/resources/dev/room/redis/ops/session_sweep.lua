-- session_sweep: mirrors RedisSessionStore.sweep / InMemorySessionStore.sweep.
-- KEYS: the room's 18, then ses, sest, sesx (RoomKeys.sessions, named in lib/sessions.lua).
-- ARGV: now, limit. Ends up to limit sessions whose time is up; reply: the line's counters, then
-- their ids (more may remain when limit were ended).
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local due = redis.call('ZRANGEBYSCORE', SESX, '-inf', now, 'LIMIT', 0, limit)
local ended = {}
for i = 1, #due do
  local s = sessionLoad(due[i])
  if s then
    sessionEnd(due[i], s)
  else
    redis.call('ZREM', SESX, due[i])
  end
  ended[#ended + 1] = due[i]
end
if #ended > 0 then
  rebalance(now)
end
local r = reply(#ended, 0, 0)
for i = 1, #ended do
  r[#r + 1] = ended[i]
end
return r
