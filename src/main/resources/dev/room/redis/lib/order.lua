-- The line order: members of line and here, tie groups (heads, gsize), positions.

-- The position count (heads' companions <heads>:pos and <heads>:bits, kept beside heads by
-- enqueue and dequeue): a position without a ZRANK, which at a million waiting was most of a
-- poll's cost in Redis. bits has bit p set while tie group (band 0, place p) exists; pos is a
-- Fenwick tree of u32 counts over blocks of POS_BLOCK places of it (node i at BITFIELD #i), and
-- at #0 the number of groups in bands above 0 (all ahead of band 0). So a band-0 group's
-- position is #0 + the blocks before its own + the bits before it in its own block + 1: one
-- BITFIELD and one BITCOUNT. ops/polls.lua's head reads it the same way. The count is on while
-- pos exists: it is made when heads is empty (a new line, or one that emptied), and dropped for
-- good when a group it cannot count appears (a band below 0, a place past POS_PLACES), so a line
-- from before it uses ZRANK until it empties once.
local POS_BLOCK, POS_NODES = 4096, 65536
local POS_PLACES = POS_BLOCK * POS_NODES

local function posKeys()
  return HEADS .. ':pos', HEADS .. ':bits'
end

-- A group (band, place) was added (d = 1) to heads or removed (d = -1); before, heads held n.
local function posCount(band, place, d, n)
  local pos, bits = posKeys()
  if d == 1 and n == 0 then
    redis.call('DEL', pos, bits)
    redis.call('BITFIELD', pos, 'SET', 'u32', '#0', 0)
  elseif redis.call('EXISTS', pos) == 0 then
    return
  end
  if band < 0 or place < 0 or place >= POS_PLACES or place % 1 ~= 0 then
    redis.call('DEL', pos, bits)
    return
  end
  if band > 0 then
    redis.call('BITFIELD', pos, 'INCRBY', 'u32', '#0', d)
    return
  end
  redis.call('SETBIT', bits, place, d == 1 and 1 or 0)
  local args = {}
  local i = math.floor(place / POS_BLOCK) + 1
  while i <= POS_NODES do
    args[#args + 1] = 'INCRBY'
    args[#args + 1] = 'u32'
    args[#args + 1] = '#' .. i
    args[#args + 1] = d
    i = i + bit.band(i, -i)
  end
  redis.call('BITFIELD', pos, unpack(args))
end

local function enqueue(t, token)
  local g = group(t[BAND], t[PLACE])
  local m = g .. string.format('%016x', t[ORDER]) .. token
  redis.call('ZADD', LINE, 0, m)
  if not away(t) then
    redis.call('ZADD', HERE, 0, m)
  end
  if redis.call('HINCRBY', GSIZE, g, 1) == 1 then
    posCount(t[BAND], t[PLACE], 1, redis.call('ZCARD', HEADS))
    redis.call('ZADD', HEADS, 0, g)
  end
end

local function dequeue(t, token)
  local g = group(t[BAND], t[PLACE])
  local m = memberOf(t, token)
  redis.call('ZREM', LINE, m)
  redis.call('ZREM', HERE, m)
  if redis.call('HINCRBY', GSIZE, g, -1) <= 0 then
    redis.call('HDEL', GSIZE, g)
    redis.call('ZREM', HEADS, g)
    posCount(t[BAND], t[PLACE], -1, nil)
  end
end

-- The member just before / after a lex bound ('(' or '[' prefixed), or nil.
local function before(bound)
  return redis.call('ZRANGE', LINE, bound, '-', 'BYLEX', 'REV', 'LIMIT', 0, 1)[1]
end

local function after(bound)
  return redis.call('ZRANGE', LINE, bound, '+', 'BYLEX', 'LIMIT', 0, 1)[1]
end

-- An exclusive lex bound just past every member starting with prefix (members are lowercase hex).
local function past(prefix)
  return '(' .. prefix .. 'g'
end

local function bandOf(member)
  return MAXBAND - tonumber(string.sub(member, 1, 8), 16)
end

-- Ties ticket t (not in line) into group (band, place): behind the members promoted into it
-- before, ahead of the member holding the place, which takes a fresher order. Saves t.
local function joinTie(t, token, band, place)
  t[BAND] = band
  t[PLACE] = place
  t[PROMOTED] = 1
  t[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
  save(token, t)
  local g = group(band, place)
  local last = before(past(g))
  if last and string.sub(last, 1, 24) == g then
    local holderToken = string.sub(last, 41)
    local holder = load(holderToken)
    if holder[PROMOTED] == 0 then
      dequeue(holder, holderToken)
      enqueue(t, token)
      holder[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
      save(holderToken, holder)
      enqueue(holder, holderToken)
      return
    end
  end
  enqueue(t, token)
end

-- One plus the number of tie groups ahead of the ticket's own.
local function position(t)
  local pos, bits = posKeys()
  if t[BAND] == 0 and redis.call('EXISTS', pos) == 1 then
    -- as ops/polls.lua's head
    local place = t[PLACE]
    local b = math.floor(place / POS_BLOCK)
    local args = {'GET', 'u32', '#0'}
    local i = b
    while i > 0 do
      args[#args + 1] = 'GET'
      args[#args + 1] = 'u32'
      args[#args + 1] = '#' .. i
      i = i - bit.band(i, -i)
    end
    local r = redis.call('BITFIELD', pos, unpack(args))
    local n = 1
    for k = 1, #r do
      n = n + r[k]
    end
    local from, to = b * POS_BLOCK / 8, math.floor(place / 8)
    if to > from then
      n = n + redis.call('BITCOUNT', bits, from, to - 1)
    end
    local rest = place % 8
    if rest > 0 then
      local byte = string.byte(redis.call('GETRANGE', bits, to, to)) or 0
      local v = math.floor(byte / 2 ^ (8 - rest)) -- the byte's bits before the place: its top ones
      while v > 0 do
        n = n + v % 2
        v = math.floor(v / 2)
      end
    end
    return n
  end
  return redis.call('ZRANK', HEADS, group(t[BAND], t[PLACE])) + 1
end
