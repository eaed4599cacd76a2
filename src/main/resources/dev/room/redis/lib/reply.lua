-- Replies: the counters every state change returns, and a ticket's fields as read.

-- A state change's reply: its result, then the counters RedisLine caches (allowance -1 = none).
local function reply(a, b, c)
  return {a, b, c, metaNum('cap'), metaNum('inflight'), redis.call('ZCARD', READYQ),
    redis.call('ZCARD', LINE), metaNum('used'), allowance() or -1}
end

-- The fields of a ticket as the admin reads and the export see them. A client restored as ready
-- is written back as it was read; one that joined its group (a pass, a promotion) is written as
-- ready too, right behind it, as the export has no way to tie with a ready client.
local function fields(out, token, t, pos)
  local n = #out
  local band, place, order = t[BAND], t[PLACE], t[ORDER]
  local called = band == CALLED
  if t[SHOWNBAND] then
    band, place, order = t[SHOWNBAND], t[SHOWNPLACE], t[SHOWNORDER]
  elseif called then
    band = 0
  end
  out[n + 1] = token
  out[n + 2] = pos
  out[n + 3] = band
  out[n + 4] = place
  out[n + 5] = order
  out[n + 6] = t[RANK]
  out[n + 7] = t[ISSUED]
  out[n + 8] = t[LAST]
  out[n + 9] = t[LASTPOLL]
  out[n + 10] = t[POLLED]
  out[n + 11] = t[SEEN]
  out[n + 12] = t[HASPASS]
  out[n + 13] = t[CLIENTKEY]
  out[n + 14] = t[NUMBER]
  out[n + 15] = (t[STATE] == READY or called) and 1 or 0
  out[n + 16] = t[PROMOTED]
  out[n + 17] = t[IDENTITY] or ''
end
