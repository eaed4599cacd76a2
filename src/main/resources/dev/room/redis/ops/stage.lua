-- stage: mirrors LineRestore.stageTickets (RedisLine.restore) / InMemoryLine.restore.
-- KEYS: the room's 18 (RoomKeys.withStaging, named in lib/keys.lua), then the staging keys.
-- KEYS[STAGED + 1..NSTAGED]: staging tk, line, heads, gsize, act, unseen, passes, ids. ARGV: now, then
-- 18 fields per ticket (token, band, place, order, rank, issuedAt, lastActivity, lastPoll, polled,
-- seen, hasPass, clientKey, promoted, number, the band, place and order it was exported with, and
-- its identity hash or '').
-- Adds tickets to a restore's staging keys, away until their client polls; returns -1 on a
-- duplicate token. The helpers above write through these upvalues, so point them at the staging
-- keys.
TK, LINE, HEADS, GSIZE, ACT, UNSEEN = KEYS[STAGED + 1], KEYS[STAGED + 2], KEYS[STAGED + 3],
  KEYS[STAGED + 4], KEYS[STAGED + 5], KEYS[STAGED + 6]
local now = tonumber(ARGV[1])
for i = 2, #ARGV, 18 do
  local token = ARGV[i]
  local band, place, order = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local xband, xplace, xorder = tonumber(ARGV[i + 14]), tonumber(ARGV[i + 15]),
    tonumber(ARGV[i + 16])
  local seen = tonumber(ARGV[i + 9])
  local t = {tonumber(ARGV[i + 13]), band, place, order, tonumber(ARGV[i + 4]),
    tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6]), tonumber(ARGV[i + 7]), now, 0, WAITING, seen,
    tonumber(ARGV[i + 8]), tonumber(ARGV[i + 10]), tonumber(ARGV[i + 12]), 0, 1, ARGV[i + 11], 1}
  if band == CALLED then
    t[SHOWNBAND], t[SHOWNPLACE], t[SHOWNORDER] = xband, xplace, xorder
  end
  if ARGV[i + 17] ~= '' then
    for f = SHOWNBAND, SHOWNORDER do
      if t[f] == nil then
        t[f] = false
      end
    end
    t[IDENTITY] = ARGV[i + 17]
    redis.call('HSET', KEYS[STAGED + 8], ARGV[i + 17], token)
  end
  if redis.call('HSETNX', TK, token, encode(t)) == 0 then
    return {-1}
  end
  enqueue(t, token)
  redis.call('ZADD', ACT, t[LAST], token)
  if seen == 0 then
    redis.call('ZADD', UNSEEN, t[ISSUED], token)
  end
end
for k = STAGED + 1, STAGED + NSTAGED do
  redis.call('PEXPIRE', KEYS[k], 3600000)
end
return {0}
