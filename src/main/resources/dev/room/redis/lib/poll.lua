-- A status poll (RedisLine.poll / InMemoryLine.poll): ops/poll runs one, ops/polls a batch.

-- Polls ticket token at now under the policy's limits; returns kind, position, flags.
local function pollTicket(token, now, ttl, grace, pollInterval, cookieRefresh, offerTimeout)
  local t = load(token)
  if not t then
    return {goneKind(token), 0, 0}
  end
  if expired(t, now, ttl, grace) then
    retire(token, t, now)
    return {K_UNKNOWN, 0, F_EVICTED}
  end
  local flags
  flags, t = lapseIfDue(token, t, now, grace, offerTimeout)
  if t[POLLED] ~= 0 and now - t[LASTPOLL] < pollInterval then
    flags = flags + F_RATE_LIMITED
  else
    t[LASTPOLL] = now
    t[POLLED] = 1
  end
  t[LAST] = now
  redis.call('ZADD', ACT, now, token)
  if t[SEEN] == 0 then
    t[SEEN] = 1
    redis.call('ZREM', UNSEEN, token)
  end
  if t[RESEND] == 1 or now - t[COOKIES] >= cookieRefresh then
    t[RESEND] = 0
    t[COOKIES] = now
    flags = flags + F_REFRESH
  end
  if away(t) then
    t = present(token, t, now)
  end
  if t[STATE] == READY then
    if t[TOLD] == 0 then
      t[TOLD] = 1
      t[READYAT] = now -- the claim deadline runs from when the client learns of it
      redis.call('ZADD', RDYAT, now, token)
      flags = flags + F_FIRST_READY
    end
    save(token, t)
    return {K_READY, 0, flags}
  end
  save(token, t)
  return {K_WAITING, position(t), flags}
end
