-- presale: mirrors RedisPresaleStore / LocalPresaleStore (PresaleStore).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- The pre-sale every room on this line shares, in meta: 'p:at' (opens at, epoch ms), 'p:seed'
-- (hex; absent: none scheduled), 'p:drawn' (1 once drawn), 'p:group' (arrivals drawn), and the
-- version 'pv' that moves on every change. Every call returns the state after it: version, opens
-- at, scheduled (1/0), seed, drawn (1/0), group; 'draw' puts its result in front.
-- ARGV[1]:
--   get
--   schedule, opensAt, seed: a first schedule sets the seed, a move keeps it; once drawn, nothing
--   cancel: once drawn, nothing
--   replace, opensAt, seed ('' = none), drawn (1/0), group
--   draw, now, seed[, index...]: the draw exactly once (lib/draw.lua). Without indexes, or with a
--     count that is not the group's, nothing moves and the result is the group's size (the caller
--     draws for that size and calls again); with the group's, it draws, records it drawn, and the
--     result is the size with a 1 after it. -1 when there is nothing to draw (not scheduled, drawn,
--     not open at now, or another seed).
local function state(...)
  local v = redis.call('HMGET', META, 'pv', 'p:at', 'p:seed', 'p:drawn', 'p:group')
  local out = {...}
  out[#out + 1] = tonumber(v[1]) or 0
  out[#out + 1] = tonumber(v[2]) or 0
  out[#out + 1] = v[3] and 1 or 0
  out[#out + 1] = v[3] or ''
  out[#out + 1] = tonumber(v[4]) or 0
  out[#out + 1] = tonumber(v[5]) or 0
  return out
end

local op = ARGV[1]
if op == 'get' then
  return state()
end
local seed = redis.call('HGET', META, 'p:seed')
local drawn = redis.call('HGET', META, 'p:drawn') == '1'
if op == 'schedule' then
  if not drawn then
    redis.call('HSET', META, 'p:at', ARGV[2], 'p:seed', seed or ARGV[3], 'p:drawn', 0, 'p:group', 0)
    redis.call('HINCRBY', META, 'pv', 1)
  end
  return state()
elseif op == 'cancel' then
  if seed and not drawn then
    redis.call('HDEL', META, 'p:at', 'p:seed', 'p:drawn', 'p:group')
    redis.call('HINCRBY', META, 'pv', 1)
  end
  return state()
elseif op == 'replace' then
  if ARGV[3] == '' then
    redis.call('HDEL', META, 'p:at', 'p:seed', 'p:drawn', 'p:group')
  else
    redis.call('HSET', META, 'p:at', ARGV[2], 'p:seed', ARGV[3], 'p:drawn', ARGV[4],
      'p:group', ARGV[5])
  end
  redis.call('HINCRBY', META, 'pv', 1)
  return state()
elseif op == 'draw' then
  local at = tonumber(redis.call('HGET', META, 'p:at')) or 0
  if not seed or drawn or tonumber(ARGV[2]) < at or seed ~= ARGV[3] then
    return state(-1, 0)
  end
  local members, places = presale_group()
  if #members ~= #ARGV - 3 then
    return state(#members, 0)
  end
  local err = presale_draw(members, places, ARGV, 4)
  if err then
    return redis.error_reply(err)
  end
  redis.call('HSET', META, 'p:drawn', 1, 'p:group', #members)
  redis.call('HINCRBY', META, 'pv', 1)
  return state(#members, 1)
end
return redis.error_reply('presale: unknown op ' .. tostring(op))
