-- ticket: mirrors RedisLine.ticket / InMemoryLine.ticket.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: token. The 16 fields of one ticket, or an empty reply.
local token = ARGV[1]
local t = load(token)
local out = {}
if t then
  fields(out, token, t, t[STATE] == READY and 0 or position(t))
end
return out
