-- The line order: members of line and here, tie groups (heads, gsize), positions.

-- The heads log (hlog, read by ops/polls.lua for each instance's HeadsMirror): one entry per tie
-- group that joins or leaves heads. Entry i (from 0) of the list is change htrim + i + 1; the list
-- keeps at least the last HLOG_KEEP changes, so a copy further behind starts over from heads.
-- Each entry carries its script's time in microseconds (the stamp): a log whose end a failover
-- or a restart from an older save lost, then grown again with other changes, differs from the
-- copy's at the copy's last change even where sign, band and place recur.
local HLOG_KEEP = 50000
local logStamp
local function logHead(sign, band, place)
  if HEADS ~= KEYS[4] then
    return -- a restore's staging keys: its commit begins a new log
  end
  if not logStamp then
    local t = redis.call('TIME')
    logStamp = tonumber(t[1]) * 1000000 + tonumber(t[2])
  end
  local n = redis.call('RPUSH', HLOG, struct.pack('>bi8i8i8', sign, band, place, logStamp))
  if n > 2 * HLOG_KEEP then
    redis.call('LTRIM', HLOG, n - HLOG_KEEP, -1)
    redis.call('HINCRBY', META, 'htrim', n - HLOG_KEEP)
  end
end

local function enqueue(t, token)
  local g = group(t[BAND], t[PLACE])
  local m = g .. string.format('%016x', t[ORDER]) .. token
  redis.call('ZADD', LINE, 0, m)
  if not away(t) then
    redis.call('ZADD', HERE, 0, m)
  end
  if redis.call('HINCRBY', GSIZE, g, 1) == 1 then
    redis.call('ZADD', HEADS, int(headScore(t[BAND], t[PLACE])), g)
    logHead(1, t[BAND], t[PLACE])
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
    logHead(-1, t[BAND], t[PLACE])
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
  return redis.call('ZRANK', HEADS, group(t[BAND], t[PLACE])) + 1
end
