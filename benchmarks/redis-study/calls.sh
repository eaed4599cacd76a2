#!/bin/sh
# What one redis.call costs inside a script, beside ZRANK, at 1,000,000 tie groups (issue 16): the
# rank index tried instead of the poll's ZRANK (a bitmap of places plus counts, three short reads
# a poll) is only as cheap as its calls. Each variant runs 200,000 times inside one EVAL on the
# same data; the figure is Redis's own usec for that EVAL (INFO commandstats) / 200,000.
# Usage: ./calls.sh PORT [ROUNDS]   (starts and stops its own redis-server on PORT)
set -eu
P=$1
ROUNDS=${2:-3}
redis-server --port "$P" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes >/dev/null
trap 'redis-cli -p "$P" shutdown nosave >/dev/null 2>&1 || true' EXIT
until redis-cli -p "$P" ping >/dev/null 2>&1; do sleep 0.1; done
# a million groups of band 0, every third place, as ops/polls.lua's heads holds them; the bitmap
# of the same places
redis-cli -p "$P" eval "
for i = 0, 999999 do
  redis.call('ZADD', 'h', 4503595332403201 + i * 3, string.format('%08x%016x', 2147483647, i * 3))
  redis.call('SETBIT', 'b', i * 3, 1)
end
return redis.call('ZCARD', 'h')" 0 >/dev/null
for r in $(seq 1 "$ROUNDS"); do
  for v in nothing format zrank getrange bitcount; do
    case $v in
      nothing) body="local x = math.floor(p / 8)" ;;
      format) body="local x = string.format('%08x%016x', 2147483647, p)" ;;
      zrank) body="redis.call('ZRANK', 'h', string.format('%08x%016x', 2147483647, p))" ;;
      getrange) body="redis.call('GETRANGE', 'b', math.floor(p / 8), math.floor(p / 8))" ;;
      bitcount) body="redis.call('BITCOUNT', 'b', 512 * math.floor(p / 4096), math.floor(p / 8))" ;;
    esac
    redis-cli -p "$P" config resetstat >/dev/null
    redis-cli -p "$P" eval "for i = 1, 200000 do local p = (i * 7919 % 1000000) * 3; $body end
      return 1" 0 >/dev/null
    us=$(redis-cli -p "$P" info commandstats | grep '^cmdstat_eval:' | sed 's/.*usec=\([0-9]*\),.*/\1/')
    echo "round $r $v $(awk "BEGIN { printf \"%.2f\", $us / 200000 }") us"
  done
done
