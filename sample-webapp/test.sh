#!/usr/bin/env bash
# See it in action: builds the library and the sample shop, starts the shop on a loopback port,
# sends it a crowd of simulated browsers and prints a live dashboard while the room queues and
# admits them. Halfway through, the shop restarts: the line is saved on shutdown and restored on
# start-up, and nobody may lose their place. Exits non-zero if anyone was admitted out of order
# or lost.
#
#   bash sample-webapp/test.sh                 # defaults below
#   BROWSERS=800 CAPACITY=40 bash test.sh      # a bigger crowd
#   RESTART=0 bash test.sh                     # no restart in the middle
#
# Needs only a JDK (17+), Maven and make. All traffic goes to 127.0.0.1.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
browsers="${BROWSERS:-400}"
capacity="${CAPACITY:-20}"
work="${WORK:-500ms}"
restart="${RESTART:-1}"
port="${PORT:-8080}"

# The Makefile's jar target: builds what changed only, with Maven's progress shown.
make -C "$root" --no-print-directory sample-jar
jar="$here/target/room-sample.jar"

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/room-sample.XXXXXX")"
chmod 700 "$work_dir"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work_dir"
}
trap cleanup EXIT

# The dashboard's token: random, passed in the environment, never printed.
ROOM_ADMIN_TOKEN="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export ROOM_ADMIN_TOKEN

# 8080 if it is free (so you can open the shop in a browser), else any free port.
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  port=0
fi

mode() { ls -l "$1" | cut -c1-10; }

start_server() {
  rm -f "$work_dir/port"
  java -jar "$jar" --host 127.0.0.1 --port "$1" --port-file "$work_dir/port" \
    --capacity "$capacity" --work "$work" --first-poll-grace 15s --reaper-interval 5s \
    --state-file "$work_dir/line.json" >>"$work_dir/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 120); do
    [ -s "$work_dir/port" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.25
  done
  echo "the sample did not start; its log:" >&2
  cat "$work_dir/server.log" >&2
  return 1
}

start_server "$port"
port="$(cat "$work_dir/port")"
echo "==> Shop on http://127.0.0.1:$port/ (open it in a browser to join the line yourself)"
[ "$restart" = "1" ] && echo "    it restarts 8 s in: the dashboard shows the server away for a moment"
echo

dashboard=lines
[ -t 1 ] && dashboard=tty # redrawn in place on a terminal, one line a second otherwise
java -cp "$jar" dev.room.sample.LoadTest --url "http://127.0.0.1:$port" \
  --browsers "$browsers" --deadline 150s --dashboard "$dashboard" &
load_pid=$!

restart_note=""
if [ "$restart" = "1" ]; then
  sleep 8
  if kill -0 "$load_pid" 2>/dev/null; then
    kill -TERM "$server_pid" # the shutdown hook drains requests in flight, then saves the line
    wait "$server_pid" || true
    saved="no line saved"
    if [ -e "$work_dir/line.json" ]; then
      saved="saved line: $(wc -c <"$work_dir/line.json" | tr -d ' ') bytes, $(mode "$work_dir/line.json")"
    fi
    start_server "$port"
    restored="$(grep -h "Restored the line" "$work_dir/server.log" | sed 's/^.*Restored the line from [^:]*: //' || true)"
    restart_note="restart at 8s: $saved; restored: ${restored:-nothing}"
  fi
fi

rc=0
wait "$load_pid" || rc=$?

kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""
[ -n "$restart_note" ] && echo "$restart_note"
if [ -e "$work_dir/line.json" ] && [ "$(mode "$work_dir/line.json")" != "-rw-------" ]; then
  echo "FAIL: the saved line is readable by others" >&2
  rc=1
fi
if grep -q "ERROR" "$work_dir/server.log"; then
  echo "The server logged errors:" >&2
  grep -A5 "ERROR" "$work_dir/server.log" | head -40 >&2
  rc=1
fi
exit "$rc"
