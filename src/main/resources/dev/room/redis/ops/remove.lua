-- remove: mirrors RedisLine.remove, removeIf / InMemoryLine.remove, removeIf.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: now, then pairs of token and ticket number (-1 = any). Retires each that is still in line.
local now = tonumber(ARGV[1])
local removed = 0
for i = 2, #ARGV, 2 do
  local token, want = ARGV[i], tonumber(ARGV[i + 1])
  local t = load(token)
  if t and (want < 0 or t[NUMBER] == want) then
    retire(token, t, now)
    removed = removed + 1
  end
end
return reply(removed, 0, 0)
