-- LIVENESS (c): HMGET the records only (authentication: the token exists), nothing written.
-- KEYS: tk. ARGV: the tokens. Returns 1/0 per token.
local rs = redis.call('HMGET', KEYS[1], unpack(ARGV))
local out = {}
for j = 1, #ARGV do out[j] = rs[j] and 1 or 0 end
return out
