-- session_start: mirrors RedisSessionStore.start / InMemorySessionStore.start.
-- KEYS: the room's 18, then ses, sest, sesx (RoomKeys.sessions, named in lib/sessions.lua).
-- ARGV: gen (this instance's lease generation, '' for none), id, ticket, now, duration, max.
-- The slot the caller holds under gen becomes the session's. When the lease lapsed meanwhile its
-- slots have gone back already, so the session takes one anew (over capacity by at most one until
-- a slot frees: the overshoot a lapsed lease already allows). Reply: moved (1 = from the lease),
-- then the line's counters, then the session (as session_get).
local gen, id, ticket, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local duration, max = tonumber(ARGV[5]), tonumber(ARGV[6])
local moved = 0
if gen ~= '' and leaseLive(gen, now) and (tonumber(redis.call('HGET', HELD, gen)) or 0) > 0 then
  redis.call('HINCRBY', HELD, gen, -1)
  moved = 1
else
  redis.call('HINCRBY', META, 'inflight', 1)
end
redis.call('HINCRBY', META, 'sesheld', 1)
local maxAt = now + max
local s = {ticket, now, math.min(now + duration, maxAt), maxAt, metaNum('sgen')}
redis.call('HSET', SES, id, cmsgpack.pack(s))
redis.call('ZADD', SESX, s[S_EXPIRES], id)
if ticket ~= '' then
  redis.call('HSET', SEST, ticket, id)
end
local r = reply(moved, 0, 0)
local out = sessionReply(id, s)
for i = 1, #out do
  r[#r + 1] = out[i]
end
return r
