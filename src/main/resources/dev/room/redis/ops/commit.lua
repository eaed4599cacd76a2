-- commit: mirrors LineRestore.run (RedisLine.restore) / InMemoryLine.restore.
-- KEYS: the room's 18 (RoomKeys.withStaging, named in lib/keys.lua), then the staging keys.
-- KEYS[STAGED + 1..NSTAGED] as for stage. ARGV: now, the largest place or order restored, the identity
-- salt ('' = none). Swaps the
-- staging keys in, all at once, unless the line was used meanwhile (returns -1). Every restored
-- ticket is away; the first in line are offered the free slots.
local now, maxKey = tonumber(ARGV[1]), tonumber(ARGV[2])
if metaNum('used') == 1 then
  for k = STAGED + 1, STAGED + NSTAGED do
    redis.call('DEL', KEYS[k])
  end
  return reply(-1, 0, 0)
end
local live = {TK, LINE, HEADS, GSIZE, ACT, UNSEEN, PASSES, IDS}
for k = 1, NSTAGED do
  if redis.call('EXISTS', KEYS[STAGED + k]) == 1 then
    redis.call('RENAME', KEYS[STAGED + k], live[k])
    redis.call('PERSIST', live[k])
  else
    redis.call('DEL', live[k])
  end
end
redis.call('DEL', READYQ, RDYAT, HERE, AOFF, MOVED, HLOG)
if ARGV[3] and ARGV[3] ~= '' then
  redis.call('HSET', META, 'isalt', ARGV[3])
else
  redis.call('HDEL', META, 'isalt')
end
if maxKey > metaNum('counter') then
  redis.call('HSET', META, 'counter', int(maxKey))
end
redis.call('HSET', META, 'used', 1)
redis.call('HSET', META, 'hv', 1)
redis.call('HSET', META, 'hs', 1) -- staged groups were scored (lib/record.lua)
-- a new heads log: every instance's copy of heads is of the line replaced
redis.call('HINCRBY', META, 'hlgen', 1)
redis.call('HDEL', META, 'htrim')
offerFirst(now)
return reply(redis.call('HLEN', TK), 0, 0)
