-- promote: mirrors RedisLine.promote, quote / InMemoryLine.promote, quote.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: token, target, move (1) or quote (0). Returns status, from, to, depth.
local token, target, move = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local t = load(token)
if not t then
  return {NOT_FOUND, 0, 0, 0}
end
if t[STATE] ~= WAITING then
  return {NOT_WAITING, 0, 0, 0}
end
local from = position(t)
local depth = redis.call('ZCARD', LINE)
if target >= from then
  return {0, from, from, depth}
end
if not move then
  return {0, from, target, depth}
end
local occupant = redis.call('ZRANGE', HEADS, target - 1, target - 1)[1]
dequeue(t, token)
joinTie(t, token, bandOf(occupant), tonumber(string.sub(occupant, 9, 24), 16))
return {0, from, position(t), depth}
