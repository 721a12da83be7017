#!/usr/bin/env python3
"""A raw protocol-v1 client for tests that need a client of another user (run it with setpriv).

Usage: protocol-client.py SOCKET [STEP]...
Connects, reads the hello (unless the first step is `no-hello`: then the steps start at once),
then works through the steps:
  a JSON request line   sent; waits up to 5 s for the reply with its id
  read=SECONDS          keeps reading for that long
  sleep=SECONDS         waits without reading
Every line the daemon sends is printed as it came. The last line is {"client":"closed"} when the
daemon closed the connection, {"client":"done"} otherwise.
"""
import json
import socket
import sys
import time


def main():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sys.argv[1])
    pending = b""
    closed = False

    def read_until(deadline, done):
        """Prints lines until done(message) holds, the deadline passes or the daemon closes."""
        nonlocal pending, closed
        while True:
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                print(line.decode(), flush=True)
                if done(json.loads(line)):
                    return
            remaining = deadline - time.monotonic()
            if closed or remaining <= 0:
                return
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                return
            if not chunk:
                closed = True
            pending += chunk

    steps = sys.argv[2:]
    if steps[:1] == ["no-hello"]:
        steps = steps[1:]
    else:
        read_until(time.monotonic() + 5, lambda message: True)
    for step in steps:
        if step.startswith("read="):
            read_until(time.monotonic() + float(step[5:]), lambda message: False)
        elif step.startswith("sleep="):
            time.sleep(float(step[6:]))
        else:
            request = json.loads(step)
            if not closed:
                try:
                    sock.sendall(step.encode() + b"\n")
                except OSError:
                    closed = True
            read_until(time.monotonic() + 5,
                       lambda message: message.get("type") == "reply" and message.get("id") == request.get("id"))
    print(json.dumps({"client": "closed" if closed else "done"}), flush=True)


main()
