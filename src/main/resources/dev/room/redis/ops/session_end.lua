-- session_end: mirrors RedisSessionStore.end and expire / InMemorySessionStore.end and expire.
-- KEYS: the room's 18, then ses, sest, sesx (RoomKeys.sessions, named in lib/sessions.lua).
-- ARGV: id, now, onlyIfExpired (1: end it only if its time is up at now). Reply: ended (1 for the
-- one call that ended it, fleet-wide), then the line's counters.
local id, now = ARGV[1], tonumber(ARGV[2])
local s = sessionLoad(id)
if not s or (ARGV[3] == '1' and now < s[S_EXPIRES]) then
  return reply(0, 0, 0)
end
sessionEnd(id, s)
rebalance(now)
return reply(1, 0, 0)
