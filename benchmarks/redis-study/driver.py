#!/usr/bin/env python3
"""Sends N batches of B random seen polls over one raw RESP connection (no client library),
at most D batches in flight, and prints Redis main-thread CPU (INFO cpu) per poll.
usage: driver.py PORT VARIANT N [B=20] [D=2]   VARIANT: baseline mirror live_a live_b live_c"""
import random, sys, time

from resp import Conn, enc, token

PORT, VAR, N = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
B = int(sys.argv[4]) if len(sys.argv) > 4 else 20
D = int(sys.argv[5]) if len(sys.argv) > 5 else 2
ENTRIES = 1_000_000
KEYS17 = ['room:{r}:meta', 'room:{r}:tk', 'room:{r}:k3', 'room:{r}:heads'] + \
    ['room:{r}:k%d' % i for i in range(5, 17)] + ['room:{r}:log']
KEYS17[8] = 'room:{r}:unseen'

c = Conn(PORT)
call, reply = c.call, c.reply

HERE = __file__.rsplit('/', 1)[0]
ZRANK = ("redis.call('ZRANK', hHeads, string.format('%08x%016x', 2147483647 - band, place)) + 1")

def mirror(baseline):
    """MIRROR is BASELINE without the ZRANK (the instance ranks from its mirror of heads), reading
    the change log instead: LRANGE KEYS[17] from ARGV[5], the instance's last-seen log index."""
    assert baseline.count(ZRANK) == 1 and baseline.rstrip().endswith('return hOut')
    body = baseline.replace(ZRANK, '0 -- position from the instance\'s mirror of heads')
    return body.rstrip()[:-len('return hOut')] + (
        "hOut[#hOut + 1] = redis.call('LRANGE', KEYS[17], tonumber(ARGV[5]), -1)\nreturn hOut\n")

src = {v: open('%s/%s.lua' % (HERE, v)).read() for v in ('baseline', 'live_a', 'live_c')}
src['mirror'] = mirror(src['baseline'])
sha = {v: call('SCRIPT', 'LOAD', text).decode() for v, text in src.items()}
loglen = int(call('LLEN', KEYS17[16]))
now0 = 1700000005000  # within the TTL of the records' LAST (load.lua: 1700000000000)
rnd = random.Random()
cmds = []
for b in range(N):
    toks = [token(rnd.randint(1, ENTRIES)) for _ in range(B)]
    now = now0 + b
    if VAR in ('baseline', 'mirror'):
        # policy: ttl, grace (0: off), interval, cookieRefresh, offerTimeout (mirror: log index)
        fifth = loglen - rnd.randint(0, 5) if VAR == 'mirror' else 60000
        argv = [300000, 0, 4000, 60000, fifth]
        for t in toks: argv += [t, now]
        cmds.append(enc('EVALSHA', sha[VAR], 17, *KEYS17, *argv))
    elif VAR == 'live_a':
        cmds.append(enc('EVALSHA', sha[VAR], 2, KEYS17[1], 'room:{r}:live', now, *toks))
    elif VAR == 'live_b':
        argv = []
        for t in toks: argv += [t, now]
        cmds.append(enc('HSET', 'room:{r}:live', *argv))
    elif VAR == 'live_c':
        cmds.append(enc('EVALSHA', sha[VAR], 1, KEYS17[1], *toks))
req_bytes = sum(len(c) for c in cmds)

def cpu():
    info = call('INFO', 'cpu').decode()
    f = dict(l.split(':', 1) for l in info.split('\r\n') if ':' in l)
    return float(f['used_cpu_sys_main_thread']) + float(f['used_cpu_user_main_thread'])

c0, t0 = cpu(), time.time()
r0 = c.recvd
sent = got = 0
rep_bytes_probe = None
while got < N:
    while sent < N and sent - got < D:
        c.send(cmds[sent]); sent += 1
    r = reply(); got += 1
    if got == 1: rep_bytes_probe = r
    if VAR in ('baseline', 'mirror') and (not isinstance(r, list) or len(r) < 3 * B or r[0] != b'1'):
        raise SystemExit('poll left the fast path: %r' % (r,))
t1, r1 = time.time(), c.recvd
c1 = cpu()
polls = N * B
print('%s polls=%d cpu_us_per_poll=%.2f wall_s=%.2f req_bytes_per_poll=%.1f reply_bytes_per_poll=%.1f reply_items=%d'
      % (VAR, polls, (c1 - c0) * 1e6 / polls, t1 - t0, req_bytes / polls, (r1 - r0) / polls,
         len(rep_bytes_probe) if isinstance(rep_bytes_probe, list) else 1))
