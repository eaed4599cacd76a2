-- register: mirrors InstanceLease.register / none (an in-memory line has one instance).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: instance name, now, lease ttl, an epoch candidate (a random number > 0). Starts a new
-- lease generation for this instance. The room's epoch is set by the first registration after the
-- room's state was created (or lost): an instance that finds another epoch than the one it knew
-- learns that Redis lost the room (a restart without persistence) and re-establishes its share.
-- Returns the generation and the epoch (0 when only callers without one registered).
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local epoch = redis.call('HGET', META, 'epoch')
if not epoch and ARGV[4] and ARGV[4] ~= '0' then
  epoch = ARGV[4]
  redis.call('HSET', META, 'epoch', epoch)
  if redis.call('HEXISTS', META, 'gen') == 0 then
    -- Generations count on from the epoch, not from 1: after a loss an instance that has not
    -- noticed it yet still renews its old generation, which must not be one handed out anew.
    redis.call('HSET', META, 'gen', epoch)
  end
end
local gen = int(redis.call('HINCRBY', META, 'gen', 1))
if redis.call('HEXISTS', META, 'hv') == 0 then
  -- The first instance that keeps presence: everyone queued before it counts as present.
  if redis.call('EXISTS', LINE) == 1 then
    redis.call('ZUNIONSTORE', HERE, 1, LINE)
  end
  redis.call('HSET', META, 'hv', 1)
end
if redis.call('HEXISTS', META, 'hs') == 0 then
  -- The first instance that scores heads (lib/record.lua's headScore): a room written before it
  -- has every group at score 0, which a rank would misorder beside scored ones, so score them all
  -- (once, in this script: about a second a million groups).
  local gs = redis.call('ZRANGE', HEADS, 0, -1)
  for i = 1, #gs, 1000 do
    local args = {}
    for j = i, math.min(i + 999, #gs) do
      args[#args + 1] = int(groupScore(gs[j]))
      args[#args + 1] = gs[j]
    end
    redis.call('ZADD', HEADS, unpack(args))
  end
  redis.call('HSET', META, 'hs', 1)
end
redis.call('ZADD', LEASES, now + ttl, gen)
redis.call('HSET', HELD, gen, 0)
redis.call('HSET', OWNERS, gen, ARGV[1])
reapLeases(now)
return reply(tonumber(gen), tonumber(epoch) or 0, 0)
