#!/usr/bin/env python3
"""A motiond client in plain Python: the socket protocol (docs/PROTOCOL.md) is JSON lines over
a Unix socket, so any language with sockets and JSON can use the daemon.

It connects, reads the hello, subscribes to the ``orientation`` events and to ``deviceMotion``,
and prints each orientation change and each device-motion attitude (Core Motion's roll, pitch
and yaw, converted from radians to degrees) as it arrives:

    python3 motion_client.py                          # /run/motiond/motiond.sock, or $MOTIOND_SOCKET
    python3 motion_client.py /tmp/motiond.sock --count 5
    python3 motion_client.py --json --interval 0.05   # the messages as the daemon sends them
    python3 motion_client.py --latency 1              # device motion in batches, once a second
    python3 motion_client.py --surroundings           # also tilt, ambient light and proximity

``--latency`` goes beyond Core Motion (Android's maximum report latency): motiond holds the
device-motion values for up to that many seconds and sends them together, so the client wakes
once per batch; every value still arrives, in order, with its own timestamp.

``--surroundings`` adds what a desktop uses beside the orientation (iio-sensor-proxy's
``AccelerometerTilt``, ``LightLevel`` and ``ProximityNear``): the ``tilt`` changes, the ambient
light in lux every ``--light-interval`` seconds and the proximity sensor's near/far changes.
A machine without such a sensor says so once; its values start if one appears.

Exit status, as motionctl's: 0 done (--count reached, --duration over), 1 the daemon rejected a request,
69 the daemon cannot be reached or closed the connection, 75 it ended the connection in order
(a goodbye: it stops or restarts), 76 it speaks another
protocol version, 77 its access policy refuses this user or a stream. Python 3.8+, standard
library only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import sys
import time
from typing import Any, Dict, Iterator, NoReturn, Optional

#: Where motiond listens unless told otherwise (``Wire.defaultSocketPath``).
DEFAULT_SOCKET = "/run/motiond/motiond.sock"
#: The protocol version this client speaks (``hello.protocol``).
PROTOCOL_VERSION = 1
#: The longest line either side may send, bytes including the newline.
MAXIMUM_LINE_LENGTH = 65_536

EXIT_REJECTED = 1
EXIT_UNAVAILABLE = 69
EXIT_GOODBYE = 75
EXIT_PROTOCOL = 76
EXIT_NO_PERMISSION = 77

Message = Dict[str, Any]


class ClientError(Exception):
    """Why the client stops early; ``status`` is the exit status that tells a script why."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class MotionClient:
    """One connection to motiond: sends request lines, yields the daemon's messages as dicts.

    Requests get increasing integer ids, and replies are matched to them by id, as the
    protocol asks (a reply to an unparsable line may overtake earlier replies).
    """

    def __init__(self, path: str) -> None:
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.connect(path)
        except OSError as error:
            self._socket.close()
            raise ClientError(f"cannot reach motiond at {path}: {error.strerror or error} (is it running?)", EXIT_UNAVAILABLE)
        self._reader = self._socket.makefile("rb")
        self._next_id = 1
        #: ``time.monotonic()`` at which ``messages()`` ends (None: never).
        self.deadline: Optional[float] = None
        self.hello = self._read_hello()

    def close(self) -> None:
        self._reader.close()
        self._socket.close()

    def _read_hello(self) -> Message:
        """The hello, which must come first (an access refusal comes instead of it)."""
        message = next(self.messages())
        if message.get("type") == "reply" and not message.get("ok", True):
            raise self.rejection(message, "motiond refuses this connection")
        if message.get("type") != "hello":
            raise ClientError(f"expected a hello first, got {message.get('type')!r}", EXIT_PROTOCOL)
        if message.get("protocol") != PROTOCOL_VERSION:
            raise ClientError(f"motiond speaks protocol {message.get('protocol')}, this client {PROTOCOL_VERSION}", EXIT_PROTOCOL)
        return message

    def request(self, op: str, **fields: Any) -> int:
        """Sends ``{"op": op, "id": …, **fields}`` and returns its id."""
        request_id = self._next_id
        self._next_id += 1
        line = json.dumps({"op": op, "id": request_id, **fields}, separators=(",", ":")) + "\n"
        try:
            self._socket.sendall(line.encode("utf-8"))
        except OSError as error:
            raise ClientError(f"motiond closed the connection: {error.strerror or error}", EXIT_UNAVAILABLE)
        return request_id

    def messages(self) -> Iterator[Message]:
        """The daemon's messages, one per line, until it closes the connection (an error) or
        the deadline passes (the end)."""
        while True:
            if self.deadline is not None:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._socket.settimeout(remaining)
            try:
                line = self._reader.readline(MAXIMUM_LINE_LENGTH)
            except socket.timeout:
                return
            if not line:
                raise ClientError("motiond closed the connection", EXIT_UNAVAILABLE)
            if not line.endswith(b"\n"):
                raise ClientError(f"a line from motiond exceeds {MAXIMUM_LINE_LENGTH} bytes", EXIT_PROTOCOL)
            try:
                message = json.loads(line)
            except ValueError as error:
                raise ClientError(f"motiond sent a line that is not JSON: {error}", EXIT_PROTOCOL)
            if not isinstance(message, dict):
                raise ClientError("motiond sent a line that is not a JSON object", EXIT_PROTOCOL)
            yield message

    @staticmethod
    def rejection(reply: Message, context: str) -> ClientError:
        """The error of a failed reply: access refusals exit 77, other errors 1."""
        error = reply.get("error") or {}
        code = error.get("code", "internalError")
        status = EXIT_NO_PERMISSION if code == "accessDenied" else EXIT_REJECTED
        return ClientError(f"{context}: {error.get('message', '')} ({code})", status)

    def check_reply(self, reply: Message, context: str) -> None:
        """Raises the reply's error if it is one."""
        if not reply.get("ok", False):
            raise self.rejection(reply, context)


def degrees(radians: Optional[float]) -> str:
    """An angle in degrees with sign, or ``-`` for a value JSON could not carry (null)."""
    return "-" if radians is None else f"{math.degrees(radians):+7.2f}°"


def describe_access(hello: Message) -> str:
    """What the daemon's access policy gives this connection, from the hello's ``access``
    (absent from older daemons): ``full (every stream)``, ``coarse (orientation, shake, …)``."""
    access = hello.get("access")
    if not access:
        return "not stated"
    streams = access.get("streams", [])
    what = "every stream" if set(streams) >= set(hello.get("streams", [])) else ", ".join(streams)
    minimum = access.get("minimumInterval", 0.01)
    cap = f", at most {1 / minimum:g} Hz" if minimum > 0.01 else ""
    return f"{access.get('tier')} ({what}{cap})"


#: What ``--surroundings`` adds: the stream and the sensor it needs (None: the accelerometer).
SURROUNDINGS = {"tilt": None, "light": "light", "proximity": "proximity"}
# A convertible's streams (--convertible), with the sensor they need beside the accelerometer.
CONVERTIBLE = {"hinge": "base accelerometer", "posture": "base accelerometer"}
OPTIONAL = {**SURROUNDINGS, **CONVERTIBLE}


def describe(message: Message) -> str:
    """One printed line for a pushed value."""
    kind = message["type"]
    if kind == "orientation":
        what = f"orientation {message['orientation']}"
    elif kind == "tilt":
        what = f"tilt {message['tilt']}"
    elif kind == "light":
        what = f"light {message['lux']:.1f} lux"
    elif kind == "proximity":
        what = f"proximity {'near' if message['near'] else 'far'} ({message['level']:.2f} × near level)"
    elif kind == "hinge":
        what = f"hinge {message['angle']:.1f}° ({message['accuracy']})"
    elif kind == "posture":
        what = f"posture {message['posture']}"
    else:
        attitude = message["attitude"]
        what = f"attitude roll={degrees(attitude['roll'])} pitch={degrees(attitude['pitch'])} yaw={degrees(attitude['yaw'])}"
    return f"{message['timestamp']:14.6f}  {what}"


def run(path: str, interval: float, frame: str, count: Optional[int], as_json: bool, latency: float = 0,
        surroundings: bool = False, light_interval: float = 1, duration: Optional[float] = None,
        convertible: bool = False) -> None:
    """Subscribes and prints until ``count`` device-motion lines or ``duration`` seconds (or
    forever); ``latency`` above 0 asks for the device-motion values in batches (``"latency"``
    of ``subscribe``); ``surroundings`` adds tilt, light (every ``light_interval`` seconds) and
    proximity; ``convertible`` a convertible's hinge angle (every ``interval`` seconds) and
    posture."""
    client = MotionClient(path)
    if duration is not None:
        client.deadline = time.monotonic() + duration
    try:
        if not as_json:
            sensors = ", ".join(name for name, state in client.hello.get("sensors", {}).items() if state.get("available"))
            print(f"# connected to {client.hello.get('daemon')} at {path}: sensors {sensors or 'none'}; "
                  f"access {describe_access(client.hello)}", flush=True)
        motion = {"interval": interval, "frame": frame, **({"latency": latency} if latency > 0 else {})}
        pending = {
            client.request("subscribe", stream="orientation"): "orientation",
            client.request("subscribe", stream="deviceMotion", **motion): "deviceMotion",
        }
        optional = [*(SURROUNDINGS if surroundings else ()), *(CONVERTIBLE if convertible else ())]
        for stream in optional:
            fields = {"interval": light_interval} if stream == "light" else {"interval": interval} if stream == "hinge" else {}
            pending[client.request("subscribe", stream=stream, **fields)] = stream
        shown = {"orientation", "deviceMotion", *optional}
        printed = 0
        for message in client.messages():
            kind = message.get("type")
            if kind == "reply":
                stream = pending.pop(message.get("id"), None)
                if stream is not None:
                    client.check_reply(message, f"subscribe {stream}")
                    if OPTIONAL.get(stream) and not message.get("available", True) and not as_json:
                        print(f"# no {OPTIONAL[stream]} sensor now: {stream} values start if one appears", flush=True)
                elif not message.get("ok", True):
                    raise MotionClient.rejection(message, "request")
                continue
            if kind == "goodbye":
                raise ClientError(f"motiond said goodbye: {message.get('reason')}", EXIT_GOODBYE)
            if kind not in shown:
                continue  # availability, dropped, and types newer daemons add
            print(json.dumps(message, separators=(",", ":")) if as_json else describe(message), flush=True)
            if kind == "deviceMotion":
                printed += 1
                if count is not None and printed >= count:
                    return
    finally:
        client.close()


def fail(message: str, status: int) -> NoReturn:
    print(f"motion_client: {message}", file=sys.stderr)
    sys.exit(status)


def main() -> None:
    parser = argparse.ArgumentParser(description="Print orientation changes and device-motion attitude from motiond.")
    parser.add_argument("socket", nargs="?", default=os.environ.get("MOTIOND_SOCKET", DEFAULT_SOCKET),
                        help="the daemon's socket (default: $MOTIOND_SOCKET, else %(default)s)")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between device-motion values (default 0.1)")
    parser.add_argument("--frame", default="xArbitraryZVertical",
                        help="reference frame: xArbitraryZVertical (default), xArbitraryCorrectedZVertical, "
                             "xMagneticNorthZVertical, xTrueNorthZVertical")
    parser.add_argument("--latency", type=float, default=0,
                        help="seconds device-motion values may wait to be sent together in batches "
                             "(beyond Core Motion: Android's max report latency; default 0: each at once, at most 10)")
    parser.add_argument("--surroundings", action="store_true",
                        help="also print tilt changes, the ambient light and proximity changes")
    parser.add_argument("--light-interval", type=float, default=1,
                        help="seconds between ambient light values with --surroundings (default 1, at least 0.1)")
    parser.add_argument("--convertible", action="store_true",
                        help="also print a convertible's hinge angle (every --interval seconds) and posture changes")
    parser.add_argument("--count", type=int, help="stop after this many device-motion values")
    parser.add_argument("--duration", type=float, help="stop after this many seconds")
    parser.add_argument("--json", action="store_true", help="print the messages as JSON lines, as the daemon sends them")
    arguments = parser.parse_args()
    if arguments.count is not None and arguments.count < 1:
        parser.error("--count must be at least 1")
    if arguments.duration is not None and not arguments.duration > 0:
        parser.error("--duration must be above 0 seconds")
    if not 0 <= arguments.latency <= 10:
        parser.error("--latency must be between 0 and 10 seconds")
    if not 0.1 <= arguments.light_interval <= 3600:
        parser.error("--light-interval must be between 0.1 and 3600 seconds")
    try:
        run(arguments.socket, arguments.interval, arguments.frame, arguments.count, arguments.json, arguments.latency,
            arguments.surroundings, arguments.light_interval, arguments.duration, arguments.convertible)
    except ClientError as error:
        fail(str(error), error.status)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
