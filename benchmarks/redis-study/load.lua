-- load.lua: fills a room-like data set, entries ARGV[1]+1 .. ARGV[2] (run in chunks).
-- KEYS: meta, tk (records), heads (scored tie groups), live (token -> last seen), log (change log)
-- Record: lib/record.lua's fixed form (fields 1-10 int64 at fixed offsets, 11-17 fixints),
-- then CLIENTKEY as a str8 of 36 bytes and AWAY = 0: 139 bytes.
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
local fixed = '>BH' .. string.rep('Bi8', 10) .. 'BBBBBBB'
local now = 1700000000000
local ck = string.rep('k', 36)
local hs, zs, ls = {}, {}, {}
for i = from + 1, to do
  local token = string.format('%016x%016x', (i * 2654435761) % 281474976710656, i)
  local band, place = 0, i
  local rec = struct.pack(fixed, 220, 19, 211, i, 211, band, 211, place, 211, i, 211, 0,
    211, now, 211, now, 211, now - 10000, 211, now, 211, 0, 1, 1, 1, 0, 0, 0, 0)
    .. string.char(217, 36) .. ck .. string.char(0)
  hs[#hs + 1] = token; hs[#hs + 1] = rec
  zs[#zs + 1] = (1048575 - band) * 4294967296 + place + 1
  zs[#zs + 1] = string.format('%08x%016x', 2147483647 - band, place)
  ls[#ls + 1] = token; ls[#ls + 1] = now
end
redis.call('HSET', KEYS[2], unpack(hs))
redis.call('ZADD', KEYS[3], unpack(zs))
redis.call('HSET', KEYS[4], unpack(ls))
redis.call('HSET', KEYS[1], 'resumed', 0)
return #hs / 2
