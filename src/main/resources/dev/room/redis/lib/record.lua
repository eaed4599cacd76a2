-- The ticket record (a MessagePack array in tk) and its line member.

local function group(band, place)
  return string.format('%08x%016x', MAXBAND - band, place)
end

local function memberOf(t, token)
  return group(t[BAND], t[PLACE]) .. string.format('%016x', t[ORDER]) .. token
end

-- A tie group's score in heads. heads is ordered by score, then member: any score that never
-- decreases along the members' lexicographic order keeps that order exactly, and a rank then
-- compares doubles in the skip list where equal scores would compare (and load) every member
-- string on the way. So the groups of bands 0 to 2^20 - 2 and places 0 to 2^32 - 2 each get a
-- score of their own, (2^20 - 1 - band) * 2^32 + place + 1 (exact: below 2^53); the others share
-- one with their neighbours in that order and are told apart by member as before: 0 for higher
-- bands (they come first), a band's last score for its higher or negative places (their hex sorts
-- after its small ones), and the highest score for negative bands (they sort last).
local HSPAN, HBANDS = 4294967296, 1048575
local function headScore(band, place)
  if band >= HBANDS then
    return 0
  end
  if band < 0 then
    return (HBANDS + 1) * HSPAN
  end
  local base = (HBANDS - band) * HSPAN
  if place < 0 or place >= HSPAN - 1 then
    return base + HSPAN - 1
  end
  return base + place + 1
end

-- The score headScore gives tie group g (a heads member) when it is added.
local function groupScore(g)
  return headScore(MAXBAND - tonumber(string.sub(g, 1, 8), 16), tonumber(string.sub(g, 9), 16))
end

-- A record whose fields 1 to 17 are the integers the line writes there is stored with fields 1 to
-- 10 as int64 (0xd3) and 11 to 17 as positive fixints, then the rest as cmsgpack writes it: still
-- one MessagePack array (cmsgpack.unpack reads it as any other), but a poll (ops/polls.lua) finds
-- every field it reads and writes at a fixed offset, reads them with one struct.unpack and writes
-- them back with one struct.pack, where decoding and encoding the whole array cost a poll a
-- third of its time. Any other record (one an older version wrote) is read as before and
-- written in this form when it is next saved.
local RFIXED = '>BH' .. string.rep('Bi8', 10) .. 'BBBBBBB'
local RINT = 211 -- MessagePack int64

local function encode(t)
  local n = #t
  for f = 1, 10 do
    local v = t[f]
    if type(v) ~= 'number' or v ~= math.floor(v) or v > 9007199254740992
        or v < -9007199254740992 then
      return cmsgpack.pack(t)
    end
  end
  for f = 11, 17 do
    local v = t[f]
    if type(v) ~= 'number' or v ~= math.floor(v) or v < 0 or v > 127 then
      return cmsgpack.pack(t)
    end
  end
  if n < 18 or n > 65535 then
    return cmsgpack.pack(t)
  end
  return struct.pack(RFIXED, 220, n, RINT, t[1], RINT, t[2], RINT, t[3], RINT, t[4], RINT, t[5],
    RINT, t[6], RINT, t[7], RINT, t[8], RINT, t[9], RINT, t[10], t[11], t[12], t[13], t[14],
    t[15], t[16], t[17]) .. cmsgpack.pack(unpack(t, 18, n))
end

local function load(token)
  local r = redis.call('HGET', TK, token)
  if not r then
    return nil
  end
  return cmsgpack.unpack(r)
end

local function save(token, t)
  redis.call('HSET', TK, token, encode(t))
end

local function away(t)
  return t[AWAY] == 1
end
