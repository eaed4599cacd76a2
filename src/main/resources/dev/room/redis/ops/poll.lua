-- poll: mirrors RedisLine.poll / InMemoryLine.poll, one poll a script (lib/poll.lua), as every
-- poll ran before issue 16 (the position by ZRANK, act written). The request path sends polls
-- batched (ops/polls.lua); this one stays for RedisLine.Builder's batchPolls(false), which
-- benchmarks measure beside the batch as the "before".
-- KEYS: the room's 17 (RoomKeys.all, named in lib/keys.lua).
-- ARGV: token, now, ttl, grace, pollInterval, cookieRefresh, offerTimeout. Returns kind, position,
-- flags.
return pollTicket(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), true)
