-- health: mirrors RedisHealthWindow / LocalHealthWindow (HealthWindow).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- The window every room on this line feeds its health-driven capacity from, in meta: 'h:open'
-- (1 while a window is open), 'h:start', 'h:n' (requests), 'h:err' (failed), 'h:peak' (most in
-- flight), 'h:lat' (the most recent latencies, a cmsgpack array, oldest first), and 'h:state' (what
-- the last decision saved).
-- ARGV[1]:
--   add, now, windowMillis, minSamples, maxWindowMillis, kept, count, errors, peak, latency...:
--     returns {0} while the window stays open; when it is due, closes it and returns
--     {1, start, n, errors, peak, has state (1/0), state, capacity (meta's cap; -1 if none),
--     latency...}
--   save, state
if ARGV[1] == 'save' then
  redis.call('HSET', META, 'h:state', ARGV[2])
  return {0}
end
local now, window, min, maxwin, kept = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5]), tonumber(ARGV[6])
local count, errors, peak = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
if count <= 0 then
  return {0}
end
local v = redis.call('HMGET', META, 'h:open', 'h:start', 'h:n', 'h:err', 'h:peak', 'h:lat')
local start, n, err, top, lat = now, 0, 0, 0, {}
if v[1] == '1' then
  start, n, err, top = tonumber(v[2]), tonumber(v[3]), tonumber(v[4]), tonumber(v[5])
  if v[6] then
    lat = cmsgpack.unpack(v[6])
  end
end
for i = 10, #ARGV do
  lat[#lat + 1] = math.max(0, tonumber(ARGV[i]))
end
if #lat > kept then
  local trimmed = {}
  for i = #lat - kept + 1, #lat do
    trimmed[#trimmed + 1] = lat[i]
  end
  lat = trimmed
end
n, err, top = n + count, err + errors, math.max(top, peak)
local age = now - start
if age < maxwin and (age < window or n < min) then
  redis.call('HSET', META, 'h:open', 1, 'h:start', start, 'h:n', n, 'h:err', err, 'h:peak', top,
    'h:lat', cmsgpack.pack(lat))
  return {0}
end
redis.call('HDEL', META, 'h:open', 'h:start', 'h:n', 'h:err', 'h:peak', 'h:lat')
local state = redis.call('HGET', META, 'h:state')
local cap = tonumber(redis.call('HGET', META, 'cap')) or -1
local out = {1, start, n, err, top, state and 1 or 0, state or '', cap}
for i = 1, #lat do
  out[#out + 1] = lat[i]
end
return out
