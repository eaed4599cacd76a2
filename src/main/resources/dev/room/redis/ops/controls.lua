-- controls: mirrors RedisControls.read, write / LocalControls.read, write.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: 'get'; or 'set', control (mode, announcement, rate), value. The sale controls every room
-- on this line shares, in meta 'c:<control>', with the version 'cv' that moves on every write.
-- get returns the version, then for each control a flag (1 = set) and its value.
if ARGV[1] == 'set' then
  redis.call('HSET', META, 'c:' .. ARGV[2], ARGV[3])
  return {redis.call('HINCRBY', META, 'cv', 1)}
end
local v = redis.call('HMGET', META, 'cv', 'c:mode', 'c:announcement', 'c:rate')
local out = {tonumber(v[1]) or 0}
for i = 2, 4 do
  out[#out + 1] = v[i] and 1 or 0
  out[#out + 1] = v[i] or ''
end
return out
