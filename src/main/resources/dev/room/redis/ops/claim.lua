-- claim: mirrors RedisLine.claim / InMemoryLine.claim.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: gen, token, now, ttl, grace, offerTimeout, pollInterval.
local gen, token, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local grace, offerTimeout = tonumber(ARGV[5]), tonumber(ARGV[6])
local t = load(token)
if not t then
  return reply(goneKind(token), 0, 0)
end
if expired(t, now, tonumber(ARGV[4]), grace) then
  retire(token, t, now)
  return reply(K_UNKNOWN, 0, F_EVICTED)
end
if t[STATE] == READY and not leaseLive(gen, now) then
  return reply(FENCED, 0, 0)
end
local flags
flags, t = lapseIfDue(token, t, now, grace, offerTimeout)
if away(t) then
  t = present(token, t, now)
end
if t[STATE] == READY then
  if not leaseLive(gen, now) then
    return reply(FENCED, 0, flags)
  end
  admitReady(token, gen)
  return reply(K_ADMITTED, 0, flags)
end
t[LAST] = now
redis.call('ZADD', ACT, now, token)
if t[SEEN] == 0 then
  t[SEEN] = 1
  redis.call('ZREM', UNSEEN, token)
end
-- a reload is a poll in disguise: one per poll interval, no cookies re-sent; the page's own poll
-- just before is the room's doing, so it does not count against the visitor (POLLED 2: the last
-- accepted poll was a reload)
if t[POLLED] == 2 and now - t[LASTPOLL] < tonumber(ARGV[7]) then
  flags = flags + F_RATE_LIMITED
else
  t[LASTPOLL] = now
  t[POLLED] = 2
  t[COOKIES] = now
end
save(token, t)
return reply(K_WAITING, position(t), flags)
