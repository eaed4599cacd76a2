-- What writing a polled ticket's record back costs inside a script (issue 16): the old poll
-- unpacked every fixed field and packed them all again; the landed one (ops/polls.lua) copies the
-- record's first 58 bytes with struct.pack's 'c58', writes LAST and LASTPOLL, and appends the rest
-- with 'c0' (the steady poll: cookies not due, already seen and polled), or writes LAST to RESEND
-- when more changed. Both unpack every fixed field first, to check the record's form.
-- Usage: redis-cli -p PORT --eval record.lua , 200000 old|steady|changed   (ns per record)
local fixed = '>BH' .. string.rep('Bi8', 10) .. 'BBBBBBB'
local r = struct.pack(fixed, 220, 19, 211, 1, 211, 0, 211, 12345, 211, 5, 211, 0, 211,
  1700000000000, 211, 1700000000000, 211, 1700000000000, 211, 1700000000000, 211, 0, 1, 1, 1, 0,
  0, 0, 0) .. struct.pack('B', 170) .. 'abcdefghij' .. struct.pack('B', 0)
local n, mode = tonumber(ARGV[1]), ARGV[2]
local t0 = redis.call('TIME')
local bytes = 0
for i = 1, n do
  local a, len, m1, number, m2, band, m3, place, m4, order, m5, rank, m6, issued, m7, last, m8,
    lastPoll, m9, cookies, m10, readyAt, state, seen, polled, hasPass, promoted, told, resend =
    struct.unpack(fixed, r)
  last = last + i
  local s
  if mode == 'old' then
    s = struct.pack(fixed, 220, len, 211, number, 211, band, 211, place, 211, order, 211, rank,
      211, issued, 211, last, 211, lastPoll, 211, cookies, 211, readyAt, 1, seen, polled, hasPass,
      promoted, told, resend) .. string.sub(r, 101)
  elseif mode == 'steady' then
    s = struct.pack('>c58i8Bi8c0', r, last, 211, lastPoll, string.sub(r, 76))
  else
    s = struct.pack('>c58i8Bi8Bi8Bi8BBBBBBBc0', r, last, 211, lastPoll, 211, cookies, 211,
      readyAt, 1, seen, polled, hasPass, promoted, told, resend, string.sub(r, 101))
  end
  bytes = bytes + #s
end
local t1 = redis.call('TIME')
return {tostring(((t1[1] - t0[1]) * 1e6 + (t1[2] - t0[2])) / n * 1000), bytes}
