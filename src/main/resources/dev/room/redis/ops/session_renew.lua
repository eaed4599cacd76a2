-- session_renew: mirrors RedisSessionStore.renew / InMemorySessionStore.renew (the slide rule is
-- SessionStore.slide; SessionStoreContractTest runs it on both).
-- KEYS: the room's 18, then ses, sest, sesx (RoomKeys.sessions, named in lib/sessions.lua).
-- ARGV: id, now, duration. Reply: {expiresAt after}, {-1} when the session ended.
local id, now, duration = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local s = sessionLoad(id)
if not s then
  return {-1}
end
local current = s[S_EXPIRES]
if now < current then -- a session whose time is up is not renewed
  local target = math.min(now + duration, s[S_MAX])
  if target - current >= 1000 or (target == s[S_MAX] and target > current) then
    s[S_EXPIRES] = target
    redis.call('HSET', SES, id, cmsgpack.pack(s))
    redis.call('ZADD', SESX, target, id)
  end
end
return {s[S_EXPIRES]}
