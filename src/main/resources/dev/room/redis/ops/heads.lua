-- heads: mirrors none (an in-memory line ranks its own index); HeadsMirror's reads of heads.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: 'begin': returns the room's epoch, meta's hlgen (both '0' when unset), the number of
--   the last heads change (lib/order.lua's logHead) and that change (sign, band, place, stamp;
--   none when the log is empty), before a copy reads heads page by page.
-- 'page', cursor, count: the groups the copy keeps (higher bands and band 0's places below
--   HSPAN, as ops/polls.lua defers them) from score cursor on ('-inf' or '(' .. a score), about
--   count of them: returns the next cursor ('' after the last) and the groups (heads members). A page
--   ends after every group of its last score, so groups sharing a score are never split.
-- 'rank', place: one plus the groups ahead of band 0's group at place (a poll's position when
--   the copy cannot rank it).
local HSPAN = 134217728
local base = 4503595332403200 -- (2^20 - 1) * 2^32: band 0's places 0 and up score above it
if ARGV[1] == 'begin' then
  local m = redis.call('HMGET', META, 'epoch', 'hlgen', 'htrim')
  local out = {m[1] or '0', m[2] or '0', (tonumber(m[3]) or 0) + redis.call('LLEN', HLOG)}
  local last = redis.call('LINDEX', HLOG, -1)
  if last then
    out[4], out[5], out[6], out[7] = struct.unpack('>bi8i8i8', last)
  end
  return out
elseif ARGV[1] == 'rank' then
  return {redis.call('ZCOUNT', HEADS, '-inf', '(' .. int(headScore(0, tonumber(ARGV[2])))) + 1}
end
local top = int(base + HSPAN)
local gs = redis.call('ZRANGE', HEADS, ARGV[2], top, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]),
  'WITHSCORES')
local out = {''}
if #gs == 0 then
  return out
end
for i = 1, #gs, 2 do
  out[#out + 1] = gs[i]
end
-- the members of the last score after the page's last one (ZRANGE orders ties by member)
local last = gs[#gs]
for _, g in ipairs(redis.call('ZRANGE', HEADS, last, last, 'BYSCORE')) do
  if g > gs[#gs - 1] then
    out[#out + 1] = g
  end
end
out[1] = '(' .. last
return out
