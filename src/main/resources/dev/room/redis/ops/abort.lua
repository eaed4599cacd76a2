-- abort: mirrors LineRestore.run (RedisLine.restore)
--   / InMemoryLine.restore (a refused restore changes nothing).
-- KEYS: the room's 18 (RoomKeys.withStaging, named in lib/keys.lua), then the staging keys.
-- KEYS[STAGED + 1..NSTAGED] as for stage. Drops a restore's staging keys.
for k = STAGED + 1, STAGED + NSTAGED do
  redis.call('DEL', KEYS[k])
end
return {0}
