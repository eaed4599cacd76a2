-- draw: mirrors RedisLine.drawPresale / InMemoryLine.drawPresale.
-- KEYS: the room's 15 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: for each new position k, the arrival index (0-based) of the ticket taking it. The pre-sale
-- draw: the waiting tickets that never moved (band 0, holding their place: not promoted), in
-- arrival order, get their own places back in the drawn order. Returns the group's size; when that
-- is not the number of indexes given, nothing moves and the caller draws again for that size.
local band0 = redis.call('ZRANGE', LINE, '[' .. group(0, 0), '+', 'BYLEX')
-- A promotion always takes a fresh order, above its place, so a member whose order equals its
-- place holds it; only the others need their record read to tell.
local members, places = {}, {}
for i = 1, #band0 do
  local place, order = string.sub(band0[i], 9, 24), string.sub(band0[i], 25, 40)
  local token = string.sub(band0[i], 41)
  if place == order or load(token)[PROMOTED] == 0 then
    members[#members + 1] = token
    places[#places + 1] = tonumber(place, 16)
  end
end
if #members ~= #ARGV then
  return {#members}
end
local tickets = {}
for i = 1, #members do
  tickets[i] = load(members[i])
end
local seen = {}
for k = 1, #ARGV do
  local i = tonumber(ARGV[k])
  if not i or i < 0 or i >= #members or seen[i] then
    return redis.error_reply('the draw is not a permutation')
  end
  seen[i] = true
end
for i = 1, #members do
  dequeue(tickets[i], members[i])
end
-- Clients tied to a group member's place stay tied to that place, in their order, and whoever
-- draws it holds it behind them: it takes a fresher order.
for k = 1, #ARGV do
  local i = tonumber(ARGV[k]) + 1
  local t = tickets[i]
  t[PLACE] = places[k]
  if redis.call('HEXISTS', GSIZE, group(0, t[PLACE])) == 1 then
    t[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
  end
  save(members[i], t)
  enqueue(t, members[i])
end
return {#members}
