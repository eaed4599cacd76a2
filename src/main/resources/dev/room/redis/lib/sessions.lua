-- Admission sessions (RedisSessionStore; in memory: dev.room.engine.InMemorySessionStore).
--
-- The session ops take the room's shared keys (KEYS[1..STAGED]) and then (RoomKeys.sessions):
--   ses     hash  session id -> session record (a cmsgpack array, fields below)
--   sest    hash  ticket -> the session id its claim started (a repeated claim resumes it)
--   sesx    zset  session id -> expiresAt (the sweep's index)
-- and meta gains sgen (the sale generation) and sesheld (slots held by sessions). A session's slot
-- is out of every instance lease: it counts in inflight and in sesheld, not in held, so it outlives
-- the instance that started it and returns exactly once, when the session ends (on any instance).
-- So inflight = sum(held) + sesheld.
local SES, SEST, SESX = KEYS[STAGED + 1], KEYS[STAGED + 2], KEYS[STAGED + 3]
local S_TICKET, S_CLAIMED, S_EXPIRES, S_MAX, S_GEN = 1, 2, 3, 4, 5

local function sessionLoad(id)
  local raw = redis.call('HGET', SES, id)
  if not raw then
    return nil
  end
  return cmsgpack.unpack(raw)
end

-- Ends session id (record s): it goes, and its slot returns to the line, in one step. The caller
-- rebalances.
local function sessionEnd(id, s)
  redis.call('HDEL', SES, id)
  redis.call('ZREM', SESX, id)
  if s[S_TICKET] ~= '' and redis.call('HGET', SEST, s[S_TICKET]) == id then
    redis.call('HDEL', SEST, s[S_TICKET])
  end
  redis.call('HINCRBY', META, 'sesheld', -1)
  redis.call('HINCRBY', META, 'inflight', -1)
end

-- A session as the store reads it: the generation, then id and the record's fields (or nothing).
local function sessionReply(id, s)
  local sgen = metaNum('sgen')
  if not s then
    return {sgen}
  end
  return {sgen, id, s[S_TICKET], s[S_CLAIMED], s[S_EXPIRES], s[S_MAX], s[S_GEN]}
end
