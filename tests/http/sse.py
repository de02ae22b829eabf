"""A raw Server-Sent Events client for tests: one connection to
/api/class/events, its status and headers, and the events read so far."""
import json
import select
import socket
import time


class Stream:
    """A raw Server-Sent Events connection: its status, headers, and the
    events read so far (chunked framing undone)."""

    def __init__(self, port, token=None, last_id=None, headers=None, path="/api/class/events"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = ["GET %s HTTP/1.1" % path, "Host: 127.0.0.1:%d" % port]
        if token:
            lines.append("Authorization: Bearer " + token)
        if last_id:
            lines.append("Last-Event-ID: " + last_id)
        for k, v in (headers or {}).items():
            lines.append("%s: %s" % (k, v))
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw = b""
        self.body = b""
        self.closed = False
        self.ended = False   # the chunked body's last chunk came
        while b"\r\n\r\n" not in self.raw:
            if not self._recv(10):
                break
        head, _, self.raw = self.raw.partition(b"\r\n\r\n")
        first, *rest = head.decode("latin-1").split("\r\n")
        self.status = int(first.split()[1])
        self.headers = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip()
                        for l in rest if ":" in l}
        self.chunked = self.headers.get("transfer-encoding") == "chunked"
        self._dechunk()

    def _recv(self, timeout):
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return False
        try:
            data = self.sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return False
        self.raw += data
        return True

    def _dechunk(self):
        if not self.chunked:
            self.body += self.raw
            self.raw = b""
            return
        while b"\r\n" in self.raw:
            size_line, _, rest = self.raw.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if len(rest) < size + 2:
                return
            if size == 0:
                self.ended = True
            self.body += rest[:size]
            self.raw = rest[size + 2:]

    def wait_for(self, pred, timeout):
        """Reads until pred(body) holds; returns the seconds it took, or None."""
        t0 = time.time()
        while not pred(self.body):
            left = timeout - (time.time() - t0)
            if left <= 0 or not self._recv(left):
                return None if not pred(self.body) else time.time() - t0
            self._dechunk()
        return time.time() - t0

    def events(self):
        """[(event, id, data)] of the complete events so far."""
        out = []
        for block in self.body.decode().split("\n\n")[:-1]:
            ev, eid, data = "message", None, []
            for line in block.split("\n"):
                if line.startswith("event: "):
                    ev = line[7:]
                elif line.startswith("id: "):
                    eid = line[4:]
                elif line.startswith("data: "):
                    data.append(line[6:])
            if data:
                out.append((ev, eid, json.loads("\n".join(data))))
        return out

    def record_ids(self):
        return [eid for ev, eid, _ in self.events() if ev == "record"]

    def close(self):
        self.sock.close()
