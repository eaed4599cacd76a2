-- commit: mirrors LineRestore.run (RedisLine.restore) / InMemoryLine.restore.
-- KEYS: the room's 15 (RoomKeys.withStaging, named in lib/keys.lua), then the staging keys.
-- KEYS[STAGED + 1..7] as for stage. ARGV: now, the largest place or order restored. Swaps the
-- staging keys in, all at once, unless the line was used meanwhile (returns -1). Every restored
-- ticket is away; the first in line are offered the free slots.
local now, maxKey = tonumber(ARGV[1]), tonumber(ARGV[2])
if metaNum('used') == 1 then
  for k = STAGED + 1, STAGED + 7 do
    redis.call('DEL', KEYS[k])
  end
  return reply(-1, 0, 0)
end
local live = {TK, LINE, HEADS, GSIZE, ACT, UNSEEN, PASSES}
for k = 1, 7 do
  if redis.call('EXISTS', KEYS[STAGED + k]) == 1 then
    redis.call('RENAME', KEYS[STAGED + k], live[k])
    redis.call('PERSIST', live[k])
  else
    redis.call('DEL', live[k])
  end
end
redis.call('DEL', READYQ, RDYAT, HERE, AOFF)
if maxKey > metaNum('counter') then
  redis.call('HSET', META, 'counter', int(maxKey))
end
redis.call('HSET', META, 'used', 1)
redis.call('HSET', META, 'hv', 1)
offerFirst(now)
return reply(redis.call('HLEN', TK), 0, 0)
