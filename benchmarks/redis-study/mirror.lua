-- MIRROR: BASELINE without the ZRANK; reads the change log instead (LRANGE KEYS[17] from ARGV[5], the instance's last-seen log index).
-- per poll struct.unpack + checks + struct.pack (no ZRANK), one HSET; ARGV[5] is the log index here.
-- KEYS: the room's 17 (1 meta, 2 tk, 4 heads, 9 unseen). ARGV: ttl, grace, interval,
-- cookieRefresh, offerTimeout, then token, now per poll.
local hTk, hHeads, hUnseen = KEYS[2], KEYS[4], KEYS[9]
local hTtl, hGrace = tonumber(ARGV[1]), tonumber(ARGV[2])
local hInterval, hCookies = tonumber(ARGV[3]), tonumber(ARGV[4])
local hGraced = hGrace > 0 and hGrace < hTtl
local hResumed = tonumber(redis.call('HGET', KEYS[1], 'resumed')) or 0
local hTokens = {}
for i = 6, #ARGV, 2 do hTokens[#hTokens + 1] = ARGV[i] end
local hRead = redis.call('HMGET', hTk, unpack(hTokens))
local hFixed = '>BH' .. string.rep('Bi8', 10) .. 'BBBBBBB'
local hOut, hRest = {}, nil
local hRec, hSlow, hWrite, hFirst = {}, {}, {}, {}
for i = 6, #ARGV, 2 do
  local token, now = ARGV[i], tonumber(ARGV[i + 1])
  local r = hRec[token]
  if not r and not hSlow[token] then r = hRead[(i - 4) / 2] end
  local fast = false
  if r and #r > 100 and not hSlow[token] then
    local a, n, m1, number, m2, band, m3, place, m4, order, m5, rank, m6, issued, m7, last, m8,
      lastPoll, m9, cookies, m10, readyAt, state, seen, polled, hasPass, promoted, told, resend =
      struct.unpack(hFixed, r)
    if a == 220 and m1 == 211 and m2 == 211 and m3 == 211 and m4 == 211 and m5 == 211
        and m6 == 211 and m7 == 211 and m8 == 211 and m9 == 211 and m10 == 211 and state == 1
        and seen < 2 and polled < 128 and hasPass < 128 and promoted < 128 and told < 128
        and resend < 128 then
      local away = 0
      if n > 18 then
        local c, at = string.byte(r, 101), nil
        if c >= 160 and c <= 191 then at = 102 + c - 160
        elseif c == 217 then at = 103 + string.byte(r, 102)
        elseif c == 218 then at = 104 + string.byte(r, 102) * 256 + string.byte(r, 103)
        elseif c < 128 or c == 192 or c == 194 or c == 195 then at = 102 end
        away = at and string.byte(r, at) or 1
      end
      if away ~= 1 and now - math.max(last, hResumed) < hTtl
          and (seen == 1 or not (hGraced and now - math.max(issued, hResumed) >= hGrace)) then
        fast = true
        local flags = 0
        if polled ~= 0 and now - lastPoll < hInterval then flags = 1
        else lastPoll = now; polled = 1 end
        last = now
        if seen == 0 then seen = 1; hFirst[#hFirst + 1] = token end
        if resend == 1 or now - cookies >= hCookies then resend = 0; cookies = now; flags = flags + 2 end
        if not hRec[token] then hWrite[#hWrite + 1] = token end
        hRec[token] = struct.pack(hFixed, 220, n, 211, number, 211, band, 211, place, 211, order,
          211, rank, 211, issued, 211, last, 211, lastPoll, 211, cookies, 211, readyAt, 1, seen,
          polled, hasPass, promoted, told, resend) .. string.sub(r, 101)
        local k = (i - 6) / 2 * 3
        hOut[k + 1] = 1
        hOut[k + 2] = 0 -- position from the instance's mirror of heads
        hOut[k + 3] = flags
      end
    end
  end
  if not fast then hSlow[token] = true; hRest = hRest or {}; hRest[#hRest + 1] = i end
end
if #hWrite > 0 then
  local w = {}
  for j, token in ipairs(hWrite) do w[2 * j - 1], w[2 * j] = token, hRec[token] end
  redis.call('HSET', hTk, unpack(w))
end
if #hFirst > 0 then redis.call('ZREM', hUnseen, unpack(hFirst)) end
hOut[#hOut + 1] = redis.call('LRANGE', KEYS[17], tonumber(ARGV[5]), -1)
return hOut
