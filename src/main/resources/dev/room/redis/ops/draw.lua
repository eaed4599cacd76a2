-- draw: mirrors RedisLine.drawPresale / InMemoryLine.drawPresale.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: for each new position k, the arrival index (0-based) of the ticket taking it. The pre-sale
-- draw (lib/draw.lua): the waiting tickets that never moved (band 0, holding their place: not
-- promoted), in arrival order, get their own places back in the drawn order. Returns the group's
-- size; when that is not the number of indexes given, nothing moves and the caller draws again for
-- that size.
local members, places = presale_group()
if #members ~= #ARGV then
  return {#members}
end
local err = presale_draw(members, places, ARGV, 1)
if err then
  return redis.error_reply(err)
end
return {#members}
