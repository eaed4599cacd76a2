#!/usr/bin/env python3
"""head.py PORT FILE N B [D]: N batches of B random seen polls EVALSHA'd to FILE's head (its
text up to '-- @library', then an error: a poll that leaves the head fails the run), D scripts in
flight. FILE is ops/polls.lua or a variant of it; the data is load.lua's (README). Prints Redis's
time per poll (INFO commandstats) and its main thread's CPU per poll."""
import random, sys, time

from resp import Conn, enc, token
PORT, FILE, N, B = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
D = int(sys.argv[5]) if len(sys.argv) > 5 else 2
ENTRIES = 1_000_000
KEYS = ['room:{r}:k%d' % i for i in range(1, 19)]
KEYS[0], KEYS[1], KEYS[2], KEYS[3], KEYS[8], KEYS[17] = 'room:{r}:meta', 'room:{r}:tk', 'room:{r}:k3', 'room:{r}:heads', 'room:{r}:unseen', 'room:{r}:log'
c = Conn(PORT)
call, reply = c.call, c.reply

text = open(FILE).read()
head = text[:text.index('-- @library')] + "error('left the head')\n"
sha = call('SCRIPT', 'LOAD', head).decode()
loglen = int(call('LLEN', KEYS[17]))
now0 = 1700000005000
rnd = random.Random(7)
cmds = []
for b in range(N):
    toks = [token(rnd.randint(1, ENTRIES)) for _ in range(B)]
    now = now0 + b
    argv = [300000, 0, 4000, 60000, 60000, loglen, 0, 0, 0]
    for t in toks: argv += [t, now]
    cmds.append(enc('EVALSHA', sha, len(KEYS), *KEYS, *argv))
def stats():
    info = call('INFO', 'cpu').decode()
    f = dict(l.split(':', 1) for l in info.split('\r\n') if ':' in l)
    cpu = float(f['used_cpu_sys_main_thread']) + float(f['used_cpu_user_main_thread'])
    info = call('INFO', 'commandstats').decode()
    us = 0
    for l in info.split('\r\n'):
        if l.startswith('cmdstat_evalsha:'):
            us = int(dict(x.split('=') for x in l.split(':', 1)[1].split(','))['usec'])
    return cpu, us
c0, u0 = stats()
sent = got = 0
while got < N:
    while sent < N and sent - got < D:
        c.send(cmds[sent]); sent += 1
    r = reply(); got += 1
    if not isinstance(r, list) or r[0] != b'1':
        raise SystemExit('unexpected reply %r' % (r[:6],))
c1, u1 = stats()
polls = N * B
print('%s server_us=%.2f cpu_us=%.2f' % (FILE, (u1 - u0) / polls, (c1 - c0) * 1e6 / polls))
