-- allowance: mirrors RedisLine.setAllowance, replaceAllowance, addAllowance
--   / InMemoryLine.setAllowance, replaceAllowance, addAllowance.
-- KEYS: the room's 15 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: 'set' or 'add', n ('inf' = unlimited, for set), max (for add), now. Sets the allowance, or
-- adds n to a limited one up to max; then hands free slots over as far as it goes. Returns the
-- allowance it found (-1 = unlimited): Line.replaceAllowance.
local op, now = ARGV[1], tonumber(ARGV[4])
local was = allowance() or -1
if op == 'set' then
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
