"""One blocking connection to motiond, without reconnection: for scripts and command-line tools
(``python3 -m motiond monitor``). Applications that should ride out a daemon restart use
:class:`motiond.MotionManager` or :class:`motiond.AsyncMotionManager`."""

from __future__ import annotations

import collections
import socket
import time
from typing import Any, Deque, Iterator, Optional

from .errors import AccessDenied, DaemonUnreachable, Goodbye, ProtocolMismatch, error_from_reply
from .messages import GoodbyeMessage, Hello, Message, PullResult, Reply, parse_line
from .wire import MAXIMUM_LINE_LENGTH, PROTOCOL_VERSION, encode_request, resolve_socket

#: Seconds between attempts while ``wait`` lasts (motionctl's ``--wait`` polls the same way).
CONNECT_POLL = 0.1


def _connect(path: str, timeout: float, wait: float) -> socket.socket:
    deadline = time.monotonic() + wait
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
            return sock
        except OSError as error:
            sock.close()
            if time.monotonic() >= deadline:
                raise DaemonUnreachable(f"cannot reach motiond at {path}: {error.strerror or error} (is it running?)") from None
            time.sleep(CONNECT_POLL)


class Connection:
    """A connection to motiond speaking protocol 1 (docs/PROTOCOL.md).

    ``path`` defaults to ``$MOTIOND_SOCKET``, else ``/run/motiond/motiond.sock``; ``wait`` is how
    many seconds to keep trying while nobody listens (the daemon may be starting); ``timeout``
    how many seconds the hello and each reply may take. Requests get increasing ids and replies
    are matched by id; values pushed meanwhile are kept for :meth:`messages`.

    >>> with Connection() as motion:
    ...     motion.subscribe("orientation")
    ...     for message in motion.messages():
    ...         print(message)
    """

    def __init__(self, path: Optional[str] = None, *, timeout: float = 5.0, wait: float = 0.0) -> None:
        self.path = resolve_socket(path)
        self.timeout = timeout
        self._socket = _connect(self.path, timeout, wait)
        self._reader = self._socket.makefile("rb")
        self._next_id = 1
        self._pending: Deque[Message] = collections.deque()
        try:
            self.hello = self._read_hello()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (ending its subscriptions)."""
        self._reader.close()
        self._socket.close()

    def _read_hello(self) -> Hello:
        message = self._read(time.monotonic() + self.timeout)
        if message is None:
            raise DaemonUnreachable(f"motiond at {self.path} sent no hello within {self.timeout:g} s")
        if isinstance(message, Reply) and not message.ok:
            raise error_from_reply({"error": message.error}, "motiond refuses this connection")
        if not isinstance(message, Hello):
            raise ProtocolMismatch(f"expected a hello first, got {message.line[:100]!r}")
        if message.protocol != PROTOCOL_VERSION:
            raise ProtocolMismatch(f"motiond speaks protocol {message.protocol}, this client {PROTOCOL_VERSION}")
        return message

    def _read(self, deadline: Optional[float]) -> Optional[Message]:
        """The next message from the socket, or None when the deadline passes first."""
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._socket.settimeout(remaining)
        else:
            self._socket.settimeout(None)
        try:
            line = self._reader.readline(MAXIMUM_LINE_LENGTH)
        except socket.timeout:
            return None
        except OSError as error:
            raise DaemonUnreachable(f"motiond closed the connection: {error.strerror or error}") from None
        if not line:
            raise DaemonUnreachable("motiond closed the connection")
        if not line.endswith(b"\n"):
            raise ProtocolMismatch(f"a line from motiond exceeds {MAXIMUM_LINE_LENGTH} bytes")
        return parse_line(line)

    def send(self, op: str, **fields: Any) -> int:
        """Sends a request without waiting for its reply (it comes through :meth:`messages`);
        returns its id. Fields that are ``None`` are left out."""
        request_id = self._next_id
        self._next_id += 1
        try:
            self._socket.sendall(encode_request(op, request_id, fields))
        except OSError as error:
            raise DaemonUnreachable(f"motiond closed the connection: {error.strerror or error}") from None
        return request_id

    def request(self, op: str, name: Optional[str] = None, **fields: Any) -> Reply:
        """Sends a request and returns its successful reply; raises the daemon's error
        (:class:`~motiond.DaemonError` naming ``name``, by default ``op``) otherwise."""
        request_id = self.send(op, **fields)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read(deadline)
            if message is None:
                raise DaemonUnreachable(f"motiond did not answer {name or op} within {self.timeout:g} s")
            if isinstance(message, Reply) and message.id == request_id:
                if not message.ok:
                    raise error_from_reply({"error": message.error}, name or op)
                return message
            if isinstance(message, GoodbyeMessage):
                raise Goodbye(message.reason)
            self._pending.append(message)

    def subscribe(self, stream: str, interval: Optional[float] = None, *, latency: Optional[float] = None,
                  frame: Optional[str] = None, **options: Any) -> Reply:
        """Subscribes to a stream (``interval`` seconds between values; ``latency`` seconds they
        may wait to come in batches; ``frame`` for ``deviceMotion``; ``filter``, ``orientation``
        or ``detectors`` as the protocol says). The reply's ``fields`` hold the granted
        ``interval`` and whether the stream's sensors are ``available``."""
        return self.request("subscribe", f"subscribe {stream}", stream=stream, interval=interval,
                            latency=latency or None, frame=frame, **options)

    def unsubscribe(self, stream: str) -> None:
        """Ends this connection's subscription to a stream."""
        self.request("unsubscribe", f"unsubscribe {stream}", stream=stream)

    def get(self, stream: str, *, frame: Optional[str] = None, orientation: Optional[str] = None) -> PullResult:
        """The daemon's latest value of a stream and its age (a pull: starts no sensor; the
        error ``noSample`` when there is none yet)."""
        return PullResult.from_reply(self.request("get", f"get {stream}", stream=stream, frame=frame, orientation=orientation))

    def status(self) -> "dict[str, Any]":
        """The daemon's status object (``daemon``, ``source``, ``sensors``, ``engine``, …)."""
        return self.request("status").fields.get("status", {})

    def messages(self, until: Optional[float] = None) -> Iterator[Message]:
        """The daemon's messages as they come, until ``until`` (a ``time.monotonic()`` value;
        None: forever). Raises :class:`~motiond.Goodbye` when the daemon ends the connection in
        order, :class:`~motiond.DaemonUnreachable` when it is lost, and the daemon's error for
        a failed reply to a request made with :meth:`send`."""
        while True:
            message = self._pending.popleft() if self._pending else self._read(until)
            if message is None:
                return
            if isinstance(message, GoodbyeMessage):
                raise Goodbye(message.reason)
            if isinstance(message, Reply) and not message.ok:
                if message.id is None and (message.error or {}).get("code") == "accessDenied":
                    raise AccessDenied("accessDenied", (message.error or {}).get("message", ""), "connection")
                raise error_from_reply({"error": message.error}, "request")
            yield message
