#!/usr/bin/env python3
"""summarize.py FILE...: per variant median, range and rounds of Redis CPU us/poll; the
per-round difference to BASELINE (same round = one interleaved pair); bytes per poll; load."""
import re, statistics, sys
for f in sys.argv[1:]:
    rounds, loads, cur = [], [], None
    for line in open(f):
        m = re.match(r'(round \d+|end) .*load average: ([\d.]+)', line)
        if m:
            loads.append(float(m.group(2)))
            if m.group(1) != 'end': cur = {}; rounds.append(cur)
            continue
        m = re.match(r'(\w+) polls=(\d+) cpu_us_per_poll=([\d.]+) .*req_bytes_per_poll=([\d.]+) reply_bytes_per_poll=([\d.]+)', line)
        if m: cur[m.group(1)] = (float(m.group(3)), float(m.group(4)), float(m.group(5)))
    print('%s: %d rounds, 1-min load average %.1f-%.1f' % (f, len(rounds), min(loads), max(loads)))
    print('| variant | median us/poll | range | vs BASELINE in its round (median, range) | req B/poll | reply B/poll |')
    print('|---|---:|---|---|---:|---:|')
    for v in ('baseline', 'mirror', 'live_a', 'live_b', 'live_c'):
        xs = [r[v][0] for r in rounds]
        d = [r[v][0] / r['baseline'][0] for r in rounds]
        print('| %s | %.2f | %.2f-%.2f | %.2fx (%.2f-%.2f) | %.1f | %.1f |' % (v, statistics.median(xs), min(xs), max(xs),
              statistics.median(d), min(d), max(d), rounds[0][v][1], rounds[0][v][2]))
    print()
