-- One place per identity (InMemoryLine's IdentityBook): ids maps an identity's salted hash to the
-- token of the live ticket it holds; moved remembers the tokens a place moved away from.

-- The identity's hash under the room's salt (dev.room.spi.Identities.hash): the prehash is the
-- identity's SHA-256, all that leaves the JVM; the salt is made once, by the first arrival that
-- brings one (candidate), and read by every later one.
local function identityOf(prehash, candidate)
  local salt = redis.call('HGET', META, 'isalt')
  if not salt then
    salt = candidate
    redis.call('HSET', META, 'isalt', salt)
  end
  return redis.sha1hex(salt .. prehash)
end

-- A ticket ends: its identity, if it has one, is free again. t may be nil (it is loaded then).
local function releaseIdentity(token, t)
  if redis.call('EXISTS', IDS) == 0 then
    return
  end
  t = t or load(token)
  local id = t and t[IDENTITY]
  if id and redis.call('HGET', IDS, id) == token then
    redis.call('HDEL', IDS, id)
  end
end

-- Files ticket t under token new instead of old (every key holding a ticket's token), keeps its
-- identity bound, and remembers old as moved at now.
local function rekey(old, new, t, now)
  redis.call('HDEL', TK, old)
  save(new, t)
  if t[STATE] == WAITING then
    local m = memberOf(t, old)
    redis.call('ZREM', LINE, m)
    redis.call('ZADD', LINE, 0, memberOf(t, new))
    if redis.call('ZREM', HERE, m) == 1 then
      redis.call('ZADD', HERE, 0, memberOf(t, new))
    end
  end
  for _, k in ipairs({READYQ, RDYAT, ACT, UNSEEN, AOFF}) do
    local s = redis.call('ZSCORE', k, old)
    if s then
      redis.call('ZREM', k, old)
      redis.call('ZADD', k, s, new)
    end
  end
  redis.call('HSET', IDS, t[IDENTITY], new)
  redis.call('ZADD', MOVED, now, old)
end

-- The outcome kind for a token not in line: moved to another device, or unknown.
local function goneKind(token)
  if redis.call('ZSCORE', MOVED, token) then
    return K_MOVED
  end
  return K_UNKNOWN
end
