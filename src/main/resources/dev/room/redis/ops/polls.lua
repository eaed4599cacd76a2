-- polls: a batch of status polls, each as RedisLine.poll / InMemoryLine.poll (lib/poll.lua), in
-- one script: the polls of one instance that were waiting for Redis together (PollBatch).
-- KEYS: the room's 17 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: ttl, grace, pollInterval, cookieRefresh, offerTimeout, then a token and its now per poll.
-- Returns kind, position, flags per poll, in the order sent.
--
-- Assembled with the library after this head, not before it (LuaScripts: the marker below).
-- Setting up the library's functions costs a script far more than a poll's own work (about 50 us
-- of the 60-100 us a poll cost), so the common poll is answered here before the library exists:
-- a waiting ticket, present, within its TTL and, if never seen, within its first-poll grace (a
-- page's first poll is the common one too: every client makes one). It does what pollTicket does
-- for such a ticket (no offer can lapse, nothing is handed on) but for the activity index: the
-- record's LAST is the ticket's last activity, and act only a time no later than it, which the
-- reaper catches up when it finds the ticket due there (ops/evict.lua): a skip-list update per
-- poll was a fifth of a poll's cost, and a waiting page polls some sixty times per TTL.
-- Each redis.call costs a script about as much as the work it does, so the head reads every
-- record with one HMGET and writes them back with one HSET (and one ZREM for the first polls):
-- a token polled twice in the batch reads its own earlier poll's record from hRec. Every other
-- poll (and any later one of its token) goes to pollTicket, after the library, once the common
-- ones are written. The polls of one batch were all in flight at once, so this order is one they
-- could have run in.
local hTk, hHeads, hUnseen = KEYS[2], KEYS[4], KEYS[9]
local hTtl, hGrace = tonumber(ARGV[1]), tonumber(ARGV[2])
local hInterval, hCookies = tonumber(ARGV[3]), tonumber(ARGV[4])
-- the first-poll grace is in force (lib/window.lua's expired)
local hGraced = hGrace > 0 and hGrace < hTtl
local hResumed = tonumber(redis.call('HGET', KEYS[1], 'resumed')) or 0
local hTokens = {}
for i = 6, #ARGV, 2 do
  hTokens[#hTokens + 1] = ARGV[i]
end
local hRead = redis.call('HMGET', hTk, unpack(hTokens))
local hOut, hRest = {}, nil
local hRec, hSlow, hWrite, hFirst = {}, {}, {}, {}
for i = 6, #ARGV, 2 do
  local token, now = ARGV[i], tonumber(ARGV[i + 1])
  local t = hRec[token]
  if not t and not hSlow[token] then
    local r = hRead[(i - 4) / 2]
    t = r and cmsgpack.unpack(r)
  end
  -- record fields (lib/keys.lua): 2 BAND, 3 PLACE, 6 ISSUED, 7 LAST, 8 LASTPOLL, 9 COOKIES,
  -- 11 STATE (1 = WAITING), 12 SEEN, 13 POLLED, 17 RESEND, 19 AWAY
  if t and not hSlow[token] and t[11] == 1 and t[19] ~= 1
      and now - math.max(t[7], hResumed) < hTtl
      and (t[12] == 1 or not (hGraced and now - math.max(t[6], hResumed) >= hGrace)) then
    local flags = 0
    if t[13] ~= 0 and now - t[8] < hInterval then
      flags = 1 -- F_RATE_LIMITED
    else
      t[8] = now
      t[13] = 1
    end
    t[7] = now
    if t[12] == 0 then
      t[12] = 1
      hFirst[#hFirst + 1] = token
    end
    if t[17] == 1 or now - t[9] >= hCookies then
      t[17] = 0
      t[9] = now
      flags = flags + 2 -- F_REFRESH
    end
    if not hRec[token] then
      hRec[token] = t
      hWrite[#hWrite + 1] = token
    end
    local k = (i - 6) / 2 * 3
    hOut[k + 1] = 1 -- K_WAITING
    -- position (lib/order.lua): one plus the tie groups ahead of the ticket's own
    hOut[k + 2] = redis.call('ZRANK', hHeads,
      string.format('%08x%016x', 2147483647 - t[2], t[3])) + 1
    hOut[k + 3] = flags
  else
    hSlow[token] = true
    hRest = hRest or {}
    hRest[#hRest + 1] = i
  end
end
if #hWrite > 0 then
  local w = {}
  for j, token in ipairs(hWrite) do
    w[2 * j - 1], w[2 * j] = token, cmsgpack.pack(hRec[token])
  end
  redis.call('HSET', hTk, unpack(w))
end
if #hFirst > 0 then
  redis.call('ZREM', hUnseen, unpack(hFirst))
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
