-- stagepasses: mirrors LineRestore.stagePasses (RedisLine.restore) / InMemoryLine.restore.
-- KEYS: the room's 18 (RoomKeys.withStaging, named in lib/keys.lua), then the staging keys.
-- KEYS[STAGED + 1..NSTAGED] as for stage. ARGV: pairs of token and expiresAt.
for i = 1, #ARGV, 2 do
  redis.call('ZADD', KEYS[STAGED + 7], ARGV[i + 1], ARGV[i])
end
redis.call('PEXPIRE', KEYS[STAGED + 7], 3600000)
return {0}
