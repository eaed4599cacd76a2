-- poll: mirrors RedisLine.poll / InMemoryLine.poll, one poll a script (lib/poll.lua). The
-- request path sends polls batched (ops/polls.lua); this one stays for RedisLine.Builder's
-- batchPolls(false), which benchmarks measure beside the batch.
-- KEYS: the room's 18 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: token, now, ttl, grace, pollInterval, cookieRefresh, offerTimeout. Returns kind, position,
-- flags.
return pollTicket(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]))
