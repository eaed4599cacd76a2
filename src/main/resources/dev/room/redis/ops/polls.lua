-- polls: a batch of status polls, each as RedisLine.poll / InMemoryLine.poll (lib/poll.lua), in
-- one script: the polls of one instance that were waiting for Redis together (PollBatch).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: ttl, grace, pollInterval, cookieRefresh, offerTimeout; the last heads change the instance's
-- copy of heads holds (-1: none), the epoch and hlgen of the log it was taken from (HeadsMirror)
-- and '1' when it asks for its count check ('0' else); then a token and its now per poll.
-- Returns kind, position, flags per poll, in the order sent, then the log for the copy: 1 (0: the
-- copy is not of this log or is too far behind, and nothing follows), the number of the first
-- change sent, the count sent, the groups the copy keeps when asked and the last change sent is
-- the last there is (else -1: for the copy to check its own count), and sign, band, place per change
-- and its stamp (lib/order.lua's logHead). A
-- position below zero is -(place + 1) of a band 0 group for the copy to rank, once it holds every
-- change sent.
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
-- the loop's library functions as locals (a global and a field lookup each, per poll, otherwise)
local hUnpack, hPack, hSub = struct.unpack, struct.pack, string.sub
local hByte, hNum = string.byte, tonumber
local hTtl, hGrace = tonumber(ARGV[1]), tonumber(ARGV[2])
local hInterval, hCookies = tonumber(ARGV[3]), tonumber(ARGV[4])
-- the first-poll grace is in force (lib/window.lua's expired)
local hGraced = hGrace > 0 and hGrace < hTtl
local hMeta = redis.call('HMGET', KEYS[1], 'resumed', 'epoch', 'hlgen', 'htrim')
local hResumed = tonumber(hMeta[1]) or 0
-- The instance's copy of heads ranks band 0 (a ZRANK was a third of a poll's cost at a million
-- groups: docs/REDIS.md) when it is of this log, not ahead of it (a failover to a replica that
-- lagged) and at most HCATCH changes behind, which this reply then brings it past. One LRANGE a
-- batch reads the changes since, from the copy's last one (so that the copy can check it).
local HCATCH, HSPAN = 2000, 134217728
local hSince, hTrim = tonumber(ARGV[6]), tonumber(hMeta[4]) or 0
local hCopy = hSince >= hTrim and ARGV[7] == (hMeta[2] or '0') and ARGV[8] == (hMeta[3] or '0')
local hStart = math.max(hSince - hTrim - 1, 0)
local hLog = hCopy and redis.call('LRANGE', KEYS[18], hStart, hStart + HCATCH) or {}
-- a copy ahead of the log finds not even its own last change there
hCopy = hCopy and (#hLog > 0 or hSince == hTrim)
local hDefer = hCopy and #hLog <= HCATCH
-- Appends the log for the copy to out (see the reply above); when polls after the head ran
-- (more), they may have changed heads, and trimmed the log.
local function hTail(out, more)
  local n = #out
  if not hCopy then
    out[n + 1], out[n + 2], out[n + 3], out[n + 4] = 0, 0, 0, -1
    return out
  end
  local es = hLog
  if more and hDefer then
    local trimmed = (tonumber(redis.call('HGET', KEYS[1], 'htrim')) or 0) - hTrim
    local from = hStart + #hLog - trimmed
    if from < 0 then -- trimmed past what was read (50,000 changes in one script): start over
      out[n + 1], out[n + 2], out[n + 3], out[n + 4] = 0, 0, 0, -1
      return out
    end
    for _, e in ipairs(redis.call('LRANGE', KEYS[18], from, -1)) do
      es[#es + 1] = e
    end
  end
  -- on the copy's request (ARGV[9]), the groups it keeps (higher bands, band 0 below HSPAN:
  -- lib/record.lua's headScore), so that a change the log missed (an instance of a version
  -- before it) does not go unnoticed
  local kept = -1
  if hDefer and ARGV[9] == '1' then
    kept = redis.call('ZCOUNT', KEYS[4], '-inf', 4503595332403200 + HSPAN)
  end
  out[n + 1], out[n + 2], out[n + 3], out[n + 4] = 1, hTrim + hStart + 1, #es, kept
  n = n + 4
  for _, e in ipairs(es) do
    out[n + 1], out[n + 2], out[n + 3], out[n + 4] = struct.unpack('>bi8i8i8', e)
    n = n + 4
  end
  return out
end
local hTokens = {}
for i = 10, #ARGV, 2 do
  hTokens[#hTokens + 1] = ARGV[i]
end
local hRead = redis.call('HMGET', hTk, unpack(hTokens))
-- A record in lib/record.lua's fixed form: fields 1 to 10 int64, 11 to 17 fixints, at fixed
-- offsets; field 18 (CLIENTKEY) starts at byte 101. Any other record goes to pollTicket.
local hFixed = '>BHBi8Bi8Bi8Bi8Bi8Bi8Bi8Bi8Bi8Bi8BBBBBBB' -- '>BH', 10 x 'Bi8', 7 x 'B'
local hHot, hHotAll = '>c58i8Bi8c0', '>c58i8Bi8Bi8Bi8BBBBBBBc0'
local hOut, hRest = {}, nil
local hRec, hSlow, hWrite, hFirst = {}, {}, {}, {}
for i = 10, #ARGV, 2 do
  local token, now = ARGV[i], hNum(ARGV[i + 1])
  local r = hRec[token]
  if not r and not hSlow[token] then
    r = hRead[(i - 8) / 2]
  end
  local fast = false
  if r and #r > 100 and not hSlow[token] then
    -- record fields (lib/keys.lua): 2 BAND, 3 PLACE, 6 ISSUED, 7 LAST, 8 LASTPOLL, 9 COOKIES,
    -- 11 STATE (1 = WAITING), 12 SEEN, 13 POLLED, 17 RESEND, 19 AWAY
    local a, n, m1, number, m2, band, m3, place, m4, order, m5, rank, m6, issued, m7, last, m8,
      lastPoll, m9, cookies, m10, readyAt, state, seen, polled, hasPass, promoted, told, resend =
      hUnpack(hFixed, r)
    if a == 220 and m1 == 211 and m2 == 211 and m3 == 211 and m4 == 211 and m5 == 211
        and m6 == 211 and m7 == 211 and m8 == 211 and m9 == 211 and m10 == 211 and state == 1
        and seen < 2 and polled < 128 and hasPass < 128 and promoted < 128 and told < 128
        and resend < 128 then
      -- AWAY follows CLIENTKEY (a string; absent in records written before it: present)
      local away = 0
      if n > 18 then
        local c, c2, c3 = hByte(r, 101, 103)
        local at = nil
        if c >= 160 and c <= 191 then
          at = 102 + c - 160
        elseif c == 217 then
          at = 103 + c2
        elseif c == 218 then
          at = 104 + c2 * 256 + c3
        elseif c < 128 or c == 192 or c == 194 or c == 195 then
          at = 102
        end
        away = at and hByte(r, at) or 1
      end
      -- math.max inline, as the lookups above
      local lastAt = last > hResumed and last or hResumed
      local issuedAt = issued > hResumed and issued or hResumed
      if away ~= 1 and now - lastAt < hTtl
          and (seen == 1 or not (hGraced and now - issuedAt >= hGrace)) then
        fast = true
        local polledBefore, seenBefore = polled, seen
        local flags = 0
        if polled ~= 0 and now - lastPoll < hInterval then
          flags = 1 -- F_RATE_LIMITED
        else
          lastPoll = now
          polled = 1
        end
        last = now
        if seen == 0 then
          seen = 1
          hFirst[#hFirst + 1] = token
        end
        if resend == 1 or now - cookies >= hCookies then
          resend = 0
          cookies = now
          flags = flags + 2 -- F_REFRESH
        end
        if not hRec[token] then
          hWrite[#hWrite + 1] = token
        end
        -- Only LAST to RESEND change, so the new record is the old one's first 58 bytes (to
        -- LAST's marker), then LAST and LASTPOLL and the old bytes from COOKIES on (a steady
        -- poll: cookies not due, SEEN and POLLED as they were; a poll after a reload turns POLLED
        -- from 2 to 1), or LAST to RESEND and the old bytes from CLIENTKEY on: struct.pack copies a
        -- string's first n bytes with 'cn' and a whole one with 'c0'. Packing every field cost a
        -- poll 0.6-1.2 us more (benchmarks/redis-study/record.lua).
        if flags < 2 and polled == polledBefore and seen == seenBefore then
          hRec[token] = hPack(hHot, r, last, 211, lastPoll, hSub(r, 76))
        else
          hRec[token] = hPack(hHotAll, r, last, 211, lastPoll, 211, cookies, 211, readyAt,
            1, seen, polled, hasPass, promoted, told, resend, hSub(r, 101))
        end
        local k = (i - 10) / 2 * 3
        hOut[k + 1] = 1 -- K_WAITING
        -- position (lib/order.lua): one plus the tie groups ahead of the ticket's own
        if hDefer and band == 0 and place >= 0 and place < HSPAN then
          hOut[k + 2] = -place - 1
        else
          hOut[k + 2] = redis.call('ZRANK', hHeads,
            string.format('%08x%016x', 2147483647 - band, place)) + 1
        end
        hOut[k + 3] = flags
      end
    end
  end
  if not fast then
    hSlow[token] = true
    hRest = hRest or {}
    hRest[#hRest + 1] = i
  end
end
if #hWrite > 0 then
  local w = {}
  for j, token in ipairs(hWrite) do
    w[2 * j - 1], w[2 * j] = token, hRec[token]
  end
  redis.call('HSET', hTk, unpack(w))
end
if #hFirst > 0 then
  redis.call('ZREM', hUnseen, unpack(hFirst))
end
if not hRest then
  return hTail(hOut, false)
end
-- @library
local ttl, grace, interval = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cookies, offerTimeout = tonumber(ARGV[4]), tonumber(ARGV[5])
for _, i in ipairs(hRest) do
  local r = pollTicket(ARGV[i], tonumber(ARGV[i + 1]), ttl, grace, interval, cookies, offerTimeout)
  local k = (i - 10) / 2 * 3
  hOut[k + 1], hOut[k + 2], hOut[k + 3] = r[1], r[2], r[3]
end
return hTail(hOut, true)
