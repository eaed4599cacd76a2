-- scan: mirrors LineScan.forEach (RedisLine.queue, export) / InMemoryLine.queue, export.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: mode, cursor, n. Reads up to n tickets in line order: mode 'r' continues the ready list
-- after score cursor (then the line), mode 'l' continues the line after member cursor ('' = the
-- start). Returns next mode ('end' when done), next cursor, then 17 fields per ticket.
local mode, cursor, n = ARGV[1], ARGV[2], tonumber(ARGV[3])
local out = {'end', ''}
local count = 0
if mode == 'r' then
  local rs = redis.call('ZRANGEBYSCORE', READYQ, '(' .. cursor, '+inf', 'WITHSCORES', 'LIMIT', 0, n)
  for i = 1, #rs, 2 do
    fields(out, rs[i], load(rs[i]), 0)
    out[2] = rs[i + 1]
    count = count + 1
  end
  if count >= n then
    out[1] = 'r'
    return out
  end
  cursor = ''
end
local ms
if cursor == '' then
  ms = redis.call('ZRANGE', LINE, 0, n - count - 1)
else
  ms = redis.call('ZRANGE', LINE, '(' .. cursor, '+', 'BYLEX', 'LIMIT', 0, n - count)
end
local pos, prev = 0, nil
for i = 1, #ms do
  local g = string.sub(ms[i], 1, 24)
  if prev == nil then
    pos = redis.call('ZRANK', HEADS, g) + 1
  elseif g ~= prev then
    pos = pos + 1
  end
  prev = g
  local token = string.sub(ms[i], 41)
  fields(out, token, load(token), pos)
  out[2] = ms[i]
end
if #ms >= n - count and #ms > 0 then
  out[1] = 'l'
end
return out
