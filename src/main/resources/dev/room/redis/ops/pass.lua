-- pass: mirrors RedisLine.grantPass / InMemoryLine.grantPass.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: token, expiresAt. Records a VIP pass. The line is used from then on, so a restore, which
-- replaces every pass, is refused rather than dropping it.
redis.call('HSET', META, 'used', 1)
redis.call('ZADD', PASSES, ARGV[2], ARGV[1])
return reply(0, 0, 0)
