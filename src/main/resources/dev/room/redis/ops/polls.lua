-- polls: a batch of status polls, each as RedisLine.poll / InMemoryLine.poll (lib/poll.lua), in
-- one script: the polls of one instance that were waiting for Redis together (PollBatch).
-- KEYS: the room's 17 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: ttl, grace, pollInterval, cookieRefresh, offerTimeout, then a token and its now per poll.
-- Returns kind, position, flags per poll, in the order sent.
--
-- Assembled with the library after this head, not before it (LuaScripts: the marker below).
-- Setting up the library's functions costs a script far more than a poll's own work (about 50 us
-- of the 60-100 us a poll cost), so the common poll is answered here before the library exists:
-- a waiting ticket, present, seen, within its TTL. It does what pollTicket does for such a ticket
-- (no offer can lapse, nothing is handed on) but for the activity index: the record's LAST is
-- the ticket's last activity, and act only a time no later than it, which the reaper catches up
-- when it finds the ticket due there (ops/evict.lua): a skip-list update per poll was a fifth of
-- a poll's cost, and a waiting page polls some sixty times per TTL. Every other poll goes to
-- pollTicket, after the library, once every common one of the batch is answered. The polls of
-- one batch were all in flight at once, so this order is one they could have run in.
local hTk, hHeads = KEYS[2], KEYS[4]
local hTtl, hInterval, hCookies = tonumber(ARGV[1]), tonumber(ARGV[3]), tonumber(ARGV[4])
local hResumed = tonumber(redis.call('HGET', KEYS[1], 'resumed')) or 0
local hOut, hRest = {}, nil
for i = 6, #ARGV, 2 do
  local token, now = ARGV[i], tonumber(ARGV[i + 1])
  local r = redis.call('HGET', hTk, token)
  local t = r and cmsgpack.unpack(r)
  -- record fields (lib/keys.lua): 2 BAND, 3 PLACE, 7 LAST, 8 LASTPOLL, 9 COOKIES, 11 STATE
  -- (1 = WAITING), 12 SEEN, 13 POLLED, 17 RESEND, 19 AWAY
  if t and t[11] == 1 and t[19] ~= 1 and t[12] == 1 and now - math.max(t[7], hResumed) < hTtl then
    local flags = 0
    if t[13] ~= 0 and now - t[8] < hInterval then
      flags = 1 -- F_RATE_LIMITED
    else
      t[8] = now
      t[13] = 1
    end
    t[7] = now
    if t[17] == 1 or now - t[9] >= hCookies then
      t[17] = 0
      t[9] = now
      flags = flags + 2 -- F_REFRESH
    end
    redis.call('HSET', hTk, token, cmsgpack.pack(t))
    local k = (i - 6) / 2 * 3
    hOut[k + 1] = 1 -- K_WAITING
    -- position (lib/order.lua): one plus the tie groups ahead of the ticket's own
    hOut[k + 2] = redis.call('ZRANK', hHeads,
      string.format('%08x%016x', 2147483647 - t[2], t[3])) + 1
    hOut[k + 3] = flags
  else
    hRest = hRest or {}
    hRest[#hRest + 1] = i
  end
end
if not hRest then
  return hOut
end
-- @library
local ttl, grace, interval = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cookies, offerTimeout = tonumber(ARGV[4]), tonumber(ARGV[5])
for _, i in ipairs(hRest) do
  local r = pollTicket(ARGV[i], tonumber(ARGV[i + 1]), ttl, grace, interval, cookies, offerTimeout)
  local k = (i - 6) / 2 * 3
  hOut[k + 1], hOut[k + 2], hOut[k + 3] = r[1], r[2], r[3]
end
return hOut
