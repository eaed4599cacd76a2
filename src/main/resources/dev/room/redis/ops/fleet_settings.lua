-- fleet_settings: mirrors RedisFleetSettings.agree, read, write / LocalFleetSettings.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: 'agree', then name, value pairs; or 'get', then names; or 'set', name, value. The settings
-- every instance on the room must hold alike, in meta 's:<name>', with the version 'sv' that moves
-- on every write. agree records each value not recorded yet (HSETNX: of two instances starting at
-- once one records, the other reads it). Returns the version, then for each name asked a flag
-- (1 = recorded) and the recorded value.
local op = ARGV[1]
local names = {}
if op == 'set' then
  redis.call('HSET', META, 's:' .. ARGV[2], ARGV[3])
  return {redis.call('HINCRBY', META, 'sv', 1)}
elseif op == 'agree' then
  local wrote = false
  for i = 2, #ARGV, 2 do
    names[#names + 1] = ARGV[i]
    if redis.call('HSETNX', META, 's:' .. ARGV[i], ARGV[i + 1]) == 1 then
      wrote = true
    end
  end
  if wrote then
    redis.call('HINCRBY', META, 'sv', 1)
  end
else
  for i = 2, #ARGV do
    names[#names + 1] = ARGV[i]
  end
end
local out = {tonumber(redis.call('HGET', META, 'sv')) or 0}
for i = 1, #names do
  local v = redis.call('HGET', META, 's:' .. names[i])
  out[#out + 1] = v and 1 or 0
  out[#out + 1] = v or ''
end
return out
