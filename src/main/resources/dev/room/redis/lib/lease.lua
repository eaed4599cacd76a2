-- Lease generations: the slots an instance holds, the fence, lapsed leases.

-- Turns a ready ticket's reserved slot into a slot held under lease generation gen.
local function admitReady(token, gen)
  releaseIdentity(token)
  redis.call('HDEL', TK, token)
  redis.call('ZREM', ACT, token)
  redis.call('ZREM', UNSEEN, token)
  redis.call('ZREM', READYQ, token)
  redis.call('ZREM', RDYAT, token)
  redis.call('HINCRBY', META, 'inflight', 1)
  redis.call('HINCRBY', HELD, gen, 1)
end

-- Drops a lease: the slots held under it return (the caller rebalances).
local function dropLease(gen)
  local h = tonumber(redis.call('HGET', HELD, gen)) or 0
  if h ~= 0 then
    redis.call('HINCRBY', META, 'inflight', -h)
  end
  redis.call('HDEL', HELD, gen)
  redis.call('HDEL', OWNERS, gen)
  redis.call('ZREM', LEASES, gen)
end

-- The fence: whether generation gen may still admit and release. A lapsed lease is dropped here.
local function leaseLive(gen, now)
  local expiry = redis.call('ZSCORE', LEASES, gen)
  if not expiry then
    return false
  end
  if tonumber(expiry) <= now then
    dropLease(gen)
    rebalance(now)
    return false
  end
  return true
end

local function reapLeases(now)
  local dead = redis.call('ZRANGEBYSCORE', LEASES, '-inf', now)
  for i = 1, #dead do
    dropLease(dead[i])
  end
  if #dead > 0 then
    rebalance(now)
  end
  return #dead
end
