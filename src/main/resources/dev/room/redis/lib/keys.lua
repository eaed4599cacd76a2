-- The line's state transitions on Redis: this library, then one file per operation (ops/).
--
-- LuaScripts prepends the library (lib/keys, record, identity, order, window, retire, lease, reply,
-- poll, sessions, in that order: each piece uses only the ones before it) to each ops/<name>.lua
-- (ops/polls.lua has it inserted after its head instead), so every transition is one EVALSHA and
-- runs atomically. The rules are the in-memory line's (dev.room.engine.InMemoryLine
-- and its parts): only the storage differs.
--
-- Keys, all in the room's hash tag so a room lives on one cluster shard (KEYS[1..18]):
--   meta    hash  cap, inflight, counter, rseq, gen, used, resumed, issued (the latest issuedAt)
--                 allow and hold (lib/window.lua), the rate bucket's rate, burst, rlast, rcarry,
--                 rbank (lib/bucket.lua)
--   tk      hash  token -> ticket record (a MessagePack array, fields below; lib/record.lua's
--                 encode keeps fields 1 to 17 at fixed offsets for ops/polls.lua)
--   line    zset  waiting tickets, all score 0, member = group(24) order(16) token(32), so the
--                 lexicographic order is the line order: band desc, place asc, order asc
--   heads   zset  one member per tie group (band + place), scored by headScore (lib/record.lua)
--                 in the members' order: ZRANK + 1 is a position. meta's hs: every group scored
--   gsize   hash  group -> members waiting in it
--   ready   zset  ready tickets, scored by the order they became ready
--   rdyat   zset  ready tickets by readyAt (the claim deadline's start)
--   act     zset  every ticket by a time no later than its last activity (the record's LAST, the
--                 sliding TTL): a batched poll leaves it behind, the reaper catches a due one up
--   unseen  zset  tickets never seen since issue, by issuedAt (the first-poll grace)
--   passes  zset  VIP pass token -> expiresAt
--   leases  zset  lease generation -> expiry; a generation is one registration of one instance
--   held    hash  lease generation -> slots held under it
--   owners  hash  lease generation -> instance name (for operators)
--   here    zset  the present waiting tickets (not away), members as in line: the first is the one
--                 a freed slot goes to. A member may be stale (left by an instance that predates
--                 the key): rebalance checks it against the record and drops it.
--   aoff    zset  offers made to away clients (after an import, before they polled), by offer time
--   ids     hash  identity hash -> token of the live ticket it holds (one place per identity;
--                 lib/identity.lua); meta's isalt is the room's salt
--   moved   zset  tokens whose place moved to another device (the identity joined there), by when
--   hlog    list  the heads log: every tie group that joined or left heads since meta's htrim,
--                 as sign, band, place (lib/order.lua's logHead); meta's hlgen counts the logs
--                 begun anew (a restore's commit). Each instance ranks band 0 from its own copy
--                 of heads, fed by this log (ops/polls.lua, HeadsMirror).
--
-- Presence: a waiting ticket is present or away (record field AWAY). Away tickets are restored ones
-- not heard from since the import and ones whose offer lapsed; they keep their place (positions
-- count them) but are passed over when a slot is handed on. A poll or claim makes them present. A
-- lapsed offer is not an ending: the ticket waits again at its own place, away.
--
-- Free slots are derived, never stored: cap - inflight - #ready. inflight is the sum of held.
-- Times are epoch millis from the callers' clocks; integers stay exact below 2^53.

local META, TK, LINE, HEADS, GSIZE, READYQ, RDYAT, ACT, UNSEEN, PASSES, LEASES, HELD, OWNERS =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10],
  KEYS[11], KEYS[12], KEYS[13]
local HERE, AOFF = KEYS[14], KEYS[15]
local IDS, MOVED = KEYS[16], KEYS[17]
local HLOG = KEYS[18]
-- A restore's staging keys follow the shared ones: KEYS[STAGED + 1 .. STAGED + NSTAGED].
local STAGED, NSTAGED = 18, 8

-- Ticket record fields.
local NUMBER, BAND, PLACE, ORDER, RANK, ISSUED, LAST, LASTPOLL, COOKIES, READYAT, STATE = 1, 2, 3,
  4, 5, 6, 7, 8, 9, 10, 11
local SEEN, POLLED, HASPASS, PROMOTED, TOLD, RESEND, CLIENTKEY = 12, 13, 14, 15, 16, 17, 18
-- AWAY (1 = away; absent in records written before it = present).
local AWAY = 19
-- A client restored as ready keeps the key it was exported with, which its export writes back.
local SHOWNBAND, SHOWNPLACE, SHOWNORDER = 20, 21, 22
-- IDENTITY: the salted hash of the identity the ticket holds its place for (absent = anonymous).
-- Fields 19 to 22 are filled (false for none) before it, so the record stays a msgpack array.
local IDENTITY = 23
local WAITING, READY = 1, 2

-- Outcome kinds and flags (decoded by RedisLine into dev.room.spi.Outcome).
local K_UNKNOWN, K_WAITING, K_READY, K_ADMITTED, K_REJECTED, K_MOVED = 0, 1, 2, 3, 4, 5
local F_RATE_LIMITED, F_REFRESH, F_EVICTED, F_TIMED_OUT, F_PROMOTED, F_FIRST_READY = 1, 2, 4, 8,
  16, 32
local F_REJOINED = 64
local FENCED, NOT_FOUND, NOT_WAITING = -1, -2, -3
local MAXBAND = 2147483647
-- The band of clients restored as ready without a slot (called before the restart): above every
-- rank's band, so they stay first in line (LineRestore.CALLED, InMemoryLine's Ticket.CALLED).
local CALLED = MAXBAND

local function metaNum(field)
  return tonumber(redis.call('HGET', META, field)) or 0
end

local function int(n)
  return string.format('%d', n)
end
