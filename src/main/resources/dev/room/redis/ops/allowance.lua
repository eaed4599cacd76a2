-- allowance: mirrors RedisLine.setAllowance, replaceAllowance, addAllowance, hold, meter, refill
--   / InMemoryLine's (ServingWindow, RateBucket).
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: 'set', 'add', 'hold', 'free', 'meter' or 'refill', n ('inf' = unlimited, for set; the
-- rate for meter), max (for add; the burst for meter), now, and for meter 'empty' when a new
-- bucket is to start empty (its instance sends it again after Redis lost the room). Sets the
-- allowance (which stops a rate), or adds n to a limited one up to max, or holds the line (meta
-- 'hold': the allowance is 0 and neither set nor add changes it, whoever calls; a rate bucket's
-- content is set aside and goes on filling) or lifts the hold (the allowance stays 0 until set,
-- or is the bucket's content again): Line.hold. meter and refill run the rate bucket
-- (lib/bucket.lua). Then hands free slots over as far as it goes. Returns the allowance it found
-- (-1 = unlimited): Line.replaceAllowance; for meter and refill, when the next whole admission
-- accrues (-1 = not metered).
local op, now = ARGV[1], tonumber(ARGV[4])
local was = allowance() or -1
if op == 'meter' then
  local rate, burst = tonumber(ARGV[2]), tonumber(ARGV[3])
  if rate <= 0 then
    if bucketMetered() then
      bucketStop()
      if not lineHeld() then
        redis.call('HDEL', META, 'allow')
      end
    end
  elseif bucketMetered() then
    local content = bucketAccrue(bucketContent(), now)
    redis.call('HSET', META, 'rate', ARGV[2], 'burst', ARGV[3])
    if content >= burst then
      content = burst
      redis.call('HSET', META, 'rcarry', '0')
    end
    bucketStore(content)
  else
    redis.call('HSET', META, 'rate', ARGV[2], 'burst', ARGV[3], 'rlast', ARGV[4], 'rcarry', '0')
    bucketStore(ARGV[5] == 'empty' and 0 or burst) -- a new bucket starts full
  end
  was = bucketNextAt()
elseif op == 'refill' then
  if bucketMetered() then
    bucketStore(bucketAccrue(bucketContent(), now))
  end
  was = bucketNextAt()
elseif op == 'hold' then
  if not lineHeld() and bucketMetered() then
    redis.call('HSET', META, 'rbank', int(allowance() or 0))
  end
  redis.call('HSET', META, 'hold', 1, 'allow', 0)
elseif op == 'free' then
  if lineHeld() then
    redis.call('HDEL', META, 'hold')
    if bucketMetered() then
      redis.call('HSET', META, 'allow', int(metaNum('rbank')))
      redis.call('HDEL', META, 'rbank')
    end
  end
elseif lineHeld() then
  -- held: a refill or a setting from an instance that has not heard of the hold changes nothing
elseif op == 'set' then
  bucketStop() -- an allowance set outright replaces the rate
  if ARGV[2] == 'inf' then
    redis.call('HDEL', META, 'allow')
  else
    redis.call('HSET', META, 'allow', ARGV[2])
  end
else
  local a, n, max = allowance(), tonumber(ARGV[2]), tonumber(ARGV[3])
  if a and a < max and n > 0 then
    redis.call('HSET', META, 'allow', int(math.min(max, a + n)))
  end
end
rebalance(now)
return reply(was, 0, 0)
