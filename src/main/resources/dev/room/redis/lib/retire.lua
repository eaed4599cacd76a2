-- The exits besides admission: retirement, and an offer lapsing (the ticket waits again).

-- Ends a ticket that will never be admitted; a ready one's reserved slot moves on (unless quiet:
-- the caller hands it on).
retire = function(token, t, now, quiet)
  releaseIdentity(token, t)
  redis.call('HDEL', TK, token)
  redis.call('ZREM', ACT, token)
  redis.call('ZREM', UNSEEN, token)
  if t[STATE] == WAITING then
    dequeue(t, token)
  else
    redis.call('ZREM', READYQ, token)
    redis.call('ZREM', RDYAT, token)
    redis.call('ZREM', AOFF, token)
    if not quiet then
      rebalance(now)
    end
  end
end

-- Policy.awayOfferWindow: how long an offer to an away client waits for a poll.
local function awayWindow(grace, offerTimeout)
  return math.min(grace > 0 and grace or 30000, offerTimeout)
end

-- Policy.offerLapsed, with the amnesty.
local function lapsed(t, now, grace, offerTimeout)
  if t[STATE] ~= READY then
    return false
  end
  local span = away(t) and awayWindow(grace, offerTimeout) or offerTimeout
  return now - math.max(t[READYAT], metaNum('resumed')) >= span
end

-- Ends a ready ticket's offer, not the ticket: its slot is given back (the caller hands it on) and
-- it waits again at its own place, away (1) unless its client is the one calling (0). Returns
-- whether its client had been told (a TIMEOUT).
local function lapse(token, t, awayFlag)
  local told = t[TOLD] == 1
  redis.call('ZREM', READYQ, token)
  redis.call('ZREM', RDYAT, token)
  redis.call('ZREM', AOFF, token)
  t[STATE] = WAITING
  t[TOLD] = 0
  t[AWAY] = awayFlag
  -- The holder of the place comes back behind whoever was promoted into it meanwhile, as it
  -- stands behind every client promoted into its tie.
  if t[PROMOTED] == 0 and redis.call('HEXISTS', GSIZE, group(t[BAND], t[PLACE])) == 1 then
    t[ORDER] = redis.call('HINCRBY', META, 'counter', 1)
  end
  save(token, t)
  enqueue(t, token)
  return told
end

-- Its client was heard from: an away waiter is passed over no more (standing ahead, it is offered
-- the next slot, at once if one is free), and an offer made while away runs its full timeout from
-- when the client is told. Saves t; returns it as it is after the hand-over.
local function present(token, t, now)
  t[AWAY] = 0
  t[LAST] = now -- heard from: never passed over as absent on its own call
  redis.call('ZADD', ACT, now, token)
  save(token, t)
  if t[STATE] == READY then
    redis.call('ZREM', AOFF, token)
    return t
  end
  redis.call('ZADD', HERE, 0, memberOf(t, token))
  rebalance(now)
  return load(token)
end

-- For a poll or claim: lapses a due offer (the TIMEOUT flag if its client had been told) and hands
-- the slot on; returns the flags and the ticket as it is now. Its client is heard from now, so it
-- waits present and, standing ahead of everyone it was offered before, gets the slot back unless a
-- present client ahead of it takes it.
local function lapseIfDue(token, t, now, grace, offerTimeout)
  if not lapsed(t, now, grace, offerTimeout) then
    return 0, t
  end
  t[LAST] = now -- heard from: never passed over as absent on its own call
  redis.call('ZADD', ACT, now, token)
  local flags = lapse(token, t, 0) and F_TIMED_OUT or 0
  rebalance(now)
  return flags, load(token)
end

-- Line.lapseAbsent (InMemoryLine's ServingWindow.lapseAbsent): puts the presence window in force
-- (meta 'pw', which rebalance reads) and lapses each offer not yet told whose client has been
-- silent for it; the ticket waits again at its place, away. Returns how many lapsed.
local function lapseAbsent(now, window)
  if window > 0 then
    redis.call('HSET', META, 'pw', int(window))
  else
    redis.call('HDEL', META, 'pw')
    return 0
  end
  local lapsedCount = 0
  local ready = redis.call('ZRANGE', READYQ, 0, -1)
  for i = 1, #ready do
    local t = load(ready[i])
    if t and t[STATE] == READY and t[TOLD] == 0 and now - t[LAST] >= window then
      lapse(ready[i], t, 1)
      lapsedCount = lapsedCount + 1
    end
  end
  return lapsedCount
end
