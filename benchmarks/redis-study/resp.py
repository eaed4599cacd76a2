"""The studies' RESP client: one raw socket to a local Redis, no client library."""
import socket


def enc(*args):
    """One command in RESP, ready to send (or to keep for sending later)."""
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(out)


class Conn:
    """A connection to 127.0.0.1:port; recvd counts the bytes read from Redis."""

    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.recvd = 0

    def send(self, data):
        self.s.sendall(data)

    def _recv(self):
        d = self.s.recv(1 << 16)
        self.recvd += len(d)
        self.buf += d

    def _line(self):
        while True:
            k = self.buf.find(b'\r\n')
            if k >= 0:
                line = bytes(self.buf[:k])
                del self.buf[:k + 2]
                return line
            self._recv()

    def _bulk(self, n):
        while len(self.buf) < n + 2:
            self._recv()
        v = bytes(self.buf[:n])
        del self.buf[:n + 2]
        return v

    def reply(self):
        """The next reply; an error reply ends the run with its text."""
        line = self._line()
        t = line[:1]
        if t == b'-':
            raise SystemExit('error: ' + line.decode())
        if t in b'+:':
            return line[1:]
        n = int(line[1:])
        if n < 0:
            return None
        return self._bulk(n) if t == b'$' else [self.reply() for _ in range(n)]

    def call(self, *args):
        self.send(enc(*args))
        return self.reply()


def token(i):
    """The token load.lua files its i-th record under."""
    return '%016x%016x' % ((i * 2654435761) % 281474976710656, i)
