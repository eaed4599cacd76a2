#!/bin/sh
# run.sh PORT ROUNDS N [B=20]: interleaved rounds, each running all five variants (order rotated each round)
P=$1; R=$2; N=$3; B=${4:-20}
V="baseline mirror live_a live_b live_c"
for r in $(seq 1 $R); do
  echo "round $r $(uptime)"
  set -- $V; for i in $(seq 2 $r); do first=$1; shift; set -- $* $first; done
  for v in $*; do python3 "$(dirname "$0")/driver.py" $P $v $N $B; done
done
echo "end $(uptime)"
