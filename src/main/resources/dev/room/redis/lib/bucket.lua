-- The admission-rate bucket (Line.meter, Line.refill), one for every instance on the room: the
-- arithmetic of dev.room.engine.RateBucket and ServingWindow's meter, refill and hold, step for
-- step (LineContractTest runs the rule on both lines). Meta fields: rate (admissions a second, as
-- Java wrote it; absent = not metered), burst, rlast (the last refill, epoch ms from the callers'
-- clocks), rcarry (the fraction carried, written exactly), rbank (the whole admissions set aside
-- while the line is held). Unless held, the whole admissions the bucket holds are meta 'allow'.

local function bucketMetered()
  return redis.call('HEXISTS', META, 'rate') == 1
end

local function lineHeld()
  return redis.call('HEXISTS', META, 'hold') == 1
end

local function bucketContent()
  if lineHeld() then
    return metaNum('rbank')
  end
  return allowance() or 0
end

local function bucketStore(content)
  if lineHeld() then
    redis.call('HSET', META, 'rbank', int(content))
  else
    redis.call('HSET', META, 'allow', int(content))
  end
end

-- content plus the whole admissions accrued since the last refill (whoever made it), at most the
-- burst; a now before the last refill adds nothing and moves nothing back.
local function bucketAccrue(content, now)
  local perMilli = tonumber(redis.call('HGET', META, 'rate')) / 1000
  local burst, last = metaNum('burst'), metaNum('rlast')
  local tokens = metaNum('rcarry') + math.max(0, now - last) * perMilli
  local whole = math.floor(tokens)
  local level = content
  if content < burst then
    level = math.min(burst, content + whole)
  end
  local carry = 0
  if level < burst then
    carry = tokens - whole
  end
  redis.call('HSET', META, 'rlast', int(math.max(last, now)), 'rcarry',
    string.format('%.17g', carry))
  return level
end

-- When the next whole admission accrues (a refill before then adds nothing); -1 = not metered.
local function bucketNextAt()
  if not bucketMetered() then
    return -1
  end
  local perMilli = tonumber(redis.call('HGET', META, 'rate')) / 1000
  return metaNum('rlast') + math.max(1, math.ceil((1 - metaNum('rcarry')) / perMilli))
end

local function bucketStop()
  redis.call('HDEL', META, 'rate', 'burst', 'rlast', 'rcarry', 'rbank')
end
