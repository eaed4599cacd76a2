-- The ticket record (a cmsgpack array in tk) and its line member.

local function group(band, place)
  return string.format('%08x%016x', MAXBAND - band, place)
end

local function memberOf(t, token)
  return group(t[BAND], t[PLACE]) .. string.format('%016x', t[ORDER]) .. token
end

local function load(token)
  local r = redis.call('HGET', TK, token)
  if not r then
    return nil
  end
  return cmsgpack.unpack(r)
end

local function save(token, t)
  redis.call('HSET', TK, token, cmsgpack.pack(t))
end

local function away(t)
  return t[AWAY] == 1
end
