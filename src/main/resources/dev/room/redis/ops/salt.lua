-- salt: mirrors RedisLine.identitySalt / InMemoryLine.identitySalt.
-- KEYS: the room's (RoomKeys.all, named in lib/keys.lua). Returns the room's identity salt, or
-- nothing while no identity was hashed.
local s = redis.call('HGET', META, 'isalt')
if s then
  return {s}
end
return {}
