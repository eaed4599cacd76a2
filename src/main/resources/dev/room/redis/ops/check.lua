-- check: mirrors RedisLine.checkInvariants / InMemoryLine.checkInvariants.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: none.
-- The storage invariants, for tests: returns a message per broken one (none when all hold).
local broken = {}
local function need(ok, what)
  if not ok then
    broken[#broken + 1] = what
  end
end
local waiting, readyN, tickets = redis.call('ZCARD', LINE), redis.call('ZCARD', READYQ),
  redis.call('HLEN', TK)
need(tickets == waiting + readyN, 'tickets ' .. tickets .. ' != waiting + ready')
need(redis.call('ZCARD', RDYAT) == readyN, 'claim deadlines != ready')
need(redis.call('ZCARD', ACT) == tickets, 'activity index != tickets')
need(redis.call('ZCARD', HEADS) == redis.call('HLEN', GSIZE), 'groups != group sizes')
local heads = redis.call('ZRANGE', HEADS, 0, 9999, 'WITHSCORES')
for i = 1, #heads, 2 do
  need(tonumber(heads[i + 1]) == groupScore(heads[i]), 'group ' .. heads[i] .. ' scored '
    .. heads[i + 1] .. ', not ' .. int(groupScore(heads[i])))
end
need(#heads == 0 or redis.call('HEXISTS', META, 'hs') == 1,
  'groups in a room not marked scored (meta hs)')
local members = 0
local sizes = redis.call('HVALS', GSIZE)
for i = 1, #sizes do
  members = members + tonumber(sizes[i])
end
need(members == waiting, 'group sizes add up to ' .. members .. ', not ' .. waiting)
local held = 0
local hs = redis.call('HVALS', HELD)
for i = 1, #hs do
  held = held + tonumber(hs[i])
end
local sesheld = metaNum('sesheld')
need(sesheld >= 0, 'negative session slots')
need(held + sesheld == metaNum('inflight'),
  'held ' .. held .. ' + sessions ' .. sesheld .. ' != in flight ' .. metaNum('inflight'))
need(redis.call('ZCARD', LEASES) == redis.call('HLEN', HELD), 'leases != held counts')
local here = redis.call('ZCARD', HERE)
local allow = allowance()
need(here == 0 or allow == 0 or freeSlots() <= 0, 'a slot is free while present clients wait')
need(metaNum('inflight') >= 0, 'negative in flight')
local present = 0
for _, m in ipairs(redis.call('ZRANGE', LINE, 0, 9999)) do
  local t = load(string.sub(m, 41))
  need(t ~= nil and t[STATE] == WAITING and memberOf(t, string.sub(m, 41)) == m, 'bad waiter')
  if t and not away(t) then
    present = present + 1
    need(redis.call('ZSCORE', HERE, m) ~= false, 'a present waiter is missing from here')
  end
end
need(waiting > 10000 or present == here, 'here ' .. here .. ' != present waiters ' .. present)
for _, token in ipairs(redis.call('ZRANGE', AOFF, 0, -1)) do
  local t = load(token)
  need(t ~= nil and t[STATE] == READY and away(t) and t[TOLD] == 0, 'bad offer to an away client')
end
for _, token in ipairs(redis.call('ZRANGE', READYQ, 0, -1)) do
  local t = load(token)
  need(t ~= nil and (away(t) == (redis.call('ZSCORE', AOFF, token) ~= false)), 'aoff != away offers')
end
-- One place per identity: each bound identity names a live ticket bound to it, and back.
local ids = redis.call('HGETALL', IDS)
for i = 1, #ids, 2 do
  local t = load(ids[i + 1])
  need(t ~= nil and t[IDENTITY] == ids[i], 'an identity is bound to a ticket that ended')
end
if tickets <= 10000 then
  local bound = 0
  local all = redis.call('HGETALL', TK)
  for i = 1, #all, 2 do
    local id = cmsgpack.unpack(all[i + 1])[IDENTITY]
    if id then
      bound = bound + 1
      need(redis.call('HGET', IDS, id) == all[i], "a ticket's identity is not bound to it")
    end
  end
  need(bound == #ids / 2, 'bound tickets ' .. bound .. ' != identities ' .. #ids / 2)
end
return broken
