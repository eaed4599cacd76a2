-- rank: mirrors RedisLine.rank / InMemoryLine.rank.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: token, rank. Returns 1 when the ticket passed someone, 0 when not, or an error status.
-- InMemoryLine.rank and placeBehind, step for step: the rank is recorded, then the ticket moves
-- past every lower recorded rank up to the nearest ticket ahead holding an equal or higher one
-- (restored ready tickets count as the highest), never splitting a tie. Only bands at least the
-- rank can hold such a ticket, so the walk back covers the ranked part of the line only.
local token, rank = ARGV[1], tonumber(ARGV[2])
local t = load(token)
if not t then
  return {NOT_FOUND}
end
if t[STATE] ~= WAITING then
  return {NOT_WAITING}
end
t[RANK] = rank
save(token, t)
local MAXRANKED = MAXBAND - 1
local floor = math.min(rank, MAXRANKED)
local me = memberOf(t, token)
local cursor = t[BAND] >= floor and '(' .. me or past(string.format('%08x', MAXBAND - floor))
local bound
while not bound do
  local ms = redis.call('ZRANGE', LINE, cursor, '-', 'BYLEX', 'REV', 'LIMIT', 0, 64)
  if #ms == 0 then
    break
  end
  for i = 1, #ms do
    if bandOf(ms[i]) == MAXBAND or load(string.sub(ms[i], 41))[RANK] >= rank then
      bound = ms[i]
      break
    end
  end
  cursor = '(' .. ms[#ms]
end
local pred = before('(' .. me)
local passes = pred ~= nil and (bound == nil or string.sub(pred, 1, 24) ~= string.sub(bound, 1, 24))
if not passes and floor <= t[BAND] then
  return {0}
end
-- Not passing anyone but rising above its band: the ticket keeps its position and leaves its tie
-- to stand ahead of its (lower-ranked) tie-mates, so its band covers its rank again.
local succ = after('(' .. me)
local leavesTie = not passes and succ ~= nil and string.sub(succ, 1, 24) == string.sub(me, 1, 24)
dequeue(t, token)
local nextg
if bound then
  nextg = after(past(string.sub(bound, 1, 24)))
else
  nextg = redis.call('ZRANGE', LINE, 0, 0)[1]
end
local upper = bound and math.min(bandOf(bound), MAXRANKED) or MAXRANKED
local band = floor
if nextg then
  local nb = bandOf(nextg)
  if nb < upper then
    band = math.min(upper, math.max(floor, nb + 1))
  else
    band = upper
  end
end
-- Keys are whole numbers: when the next group is in the same band, the rest of that band is
-- re-keyed behind the ticket, in its order.
local rest, restT = {}, {}
if nextg and bandOf(nextg) == band then
  rest = redis.call('ZRANGE', LINE, '[' .. nextg, past(string.format('%08x', MAXBAND - band)),
    'BYLEX')
end
for i = 1, #rest do
  restT[i] = load(string.sub(rest[i], 41))
  dequeue(restT[i], string.sub(rest[i], 41))
end
t[BAND] = band
t[PLACE] = redis.call('HINCRBY', META, 'counter', 1)
t[ORDER] = t[PLACE]
t[PROMOTED] = 0
save(token, t)
enqueue(t, token)
local oldPlace, place = nil, nil
for i = 1, #rest do
  local x = restT[i]
  if x[PLACE] ~= oldPlace then
    oldPlace = x[PLACE]
    place = redis.call('HINCRBY', META, 'counter', 1)
  end
  x[PLACE] = place
  save(string.sub(rest[i], 41), x)
  enqueue(x, string.sub(rest[i], 41))
end
return {(passes or leavesTie) and 1 or 0}
