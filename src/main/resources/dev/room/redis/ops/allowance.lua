-- allowance: mirrors RedisLine.setAllowance, replaceAllowance, addAllowance
--   / InMemoryLine.setAllowance, replaceAllowance, addAllowance.
-- KEYS: the room's 15 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: 'set', 'add', 'hold' or 'free', n ('inf' = unlimited, for set), max (for add), now. Sets
-- the allowance, or adds n to a limited one up to max, or holds the line (meta 'hold': the
-- allowance is 0 and neither set nor add changes it, whoever calls) or lifts the hold (the
-- allowance stays 0 until set): Line.hold. Then hands free slots over as far as it goes. Returns
-- the allowance it found (-1 = unlimited): Line.replaceAllowance.
local op, now = ARGV[1], tonumber(ARGV[4])
local was = allowance() or -1
if op == 'hold' then
  redis.call('HSET', META, 'hold', 1, 'allow', 0)
elseif op == 'free' then
  redis.call('HDEL', META, 'hold')
elseif redis.call('HEXISTS', META, 'hold') == 1 then
  -- held: a refill or a setting from an instance that has not heard of the hold changes nothing
elseif op == 'set' then
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
