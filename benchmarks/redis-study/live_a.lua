-- LIVENESS (a): HMGET the records (the tokens exist), one HSET of last-seen into `live`.
-- KEYS: tk, live. ARGV: now, then the tokens. Returns 1/0 per token (known or not).
local toks = {}
for i = 2, #ARGV do toks[#toks + 1] = ARGV[i] end
local rs = redis.call('HMGET', KEYS[1], unpack(toks))
local out, w, now = {}, {}, ARGV[1]
for j, r in ipairs(toks) do
  if rs[j] then out[j] = 1; w[#w + 1] = r; w[#w + 1] = now else out[j] = 0 end
end
if #w > 0 then redis.call('HSET', KEYS[2], unpack(w)) end
return out
