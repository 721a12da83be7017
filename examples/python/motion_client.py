#!/usr/bin/env python3
"""A motiond client using the ``motiond`` Python package (clients/python; ``pip install
./clients/python``): it subscribes to the orientation events and to device motion, and prints
each orientation change and each attitude (Core Motion's roll, pitch and yaw, in degrees):

    python3 motion_client.py                          # /run/motiond/motiond.sock, or $MOTIOND_SOCKET
    python3 motion_client.py /tmp/motiond.sock --count 5
    python3 motion_client.py --json --interval 0.05   # the messages as the daemon sends them
    python3 motion_client.py --latency 1              # device motion in batches, once a second
    python3 motion_client.py --surroundings           # also tilt, ambient light and proximity
    python3 motion_client.py --convertible            # also a convertible's hinge angle and posture

``--latency`` goes beyond Core Motion (Android's maximum report latency): motiond holds the
values for up to that many seconds and sends them together; every value still arrives, in order.
A machine without a sensor a stream needs says so once; its values start if one appears.

Exit status, as motionctl's: 0 done (--count reached, --duration over), 1 the daemon rejected a
request, 69 the daemon cannot be reached or closed the connection, 75 it said goodbye (it stops
or restarts), 76 it speaks another protocol version, 77 its access policy refuses this user or a
stream. The protocol itself is docs/PROTOCOL.md: JSON lines over a Unix socket.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

try:
    import motiond
except ImportError:  # run from a source checkout without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python", "src"))
    import motiond

#: The optional streams and the sensor each needs beside the accelerometer (said when absent).
SURROUNDINGS = {"tilt": None, "light": "light", "proximity": "proximity"}
CONVERTIBLE = {"hinge": "base accelerometer", "posture": "base accelerometer"}


def degrees(radians):
    return "-" if radians is None else f"{math.degrees(radians):+7.2f}°"


def describe(value: motiond.Message) -> str:
    """One printed line for a value."""
    if isinstance(value, motiond.DeviceMotion):
        a = value.attitude
        what = f"attitude roll={degrees(a.roll)} pitch={degrees(a.pitch)} yaw={degrees(a.yaw)}"
    elif isinstance(value, motiond.LightLevel):
        what = f"light {value.lux:.1f} lux"
    elif isinstance(value, motiond.ProximityChange):
        what = f"proximity {'near' if value.near else 'far'} ({value.level:.2f} × near level)"
    elif isinstance(value, motiond.HingeAngle):
        what = f"hinge {value.angle:.1f}° ({value.accuracy})"
    else:  # orientation, tilt, posture: the event's one field
        what = f"{value.kind} {getattr(value, value.kind)}"
    return f"{value.timestamp:14.6f}  {what}"


def access(hello: motiond.Hello) -> str:
    """What the daemon's access policy gives this connection: ``full (every stream)``, …"""
    if not hello.access:
        return "not stated"
    streams = hello.access.get("streams", [])
    what = "every stream" if set(streams) >= set(hello.streams) else ", ".join(streams)
    minimum = hello.access.get("minimumInterval", 0.01)
    return f"{hello.access.get('tier')} ({what}{f', at most {1 / minimum:g} Hz' if minimum > 0.01 else ''})"


def run(arguments: argparse.Namespace) -> None:
    with motiond.Connection(arguments.socket) as connection:
        hello = connection.hello
        if not arguments.json:
            sensors = ", ".join(name for name in hello.sensors if hello.is_available(name))
            print(f"# connected to {hello.daemon} at {connection.path}: sensors {sensors or 'none'}; "
                  f"access {access(hello)}", flush=True)
        connection.subscribe("orientation")
        connection.subscribe("deviceMotion", arguments.interval, frame=arguments.frame, latency=arguments.latency)
        optional = {**(SURROUNDINGS if arguments.surroundings else {}), **(CONVERTIBLE if arguments.convertible else {})}
        for stream, sensor in optional.items():
            interval = arguments.light_interval if stream == "light" else arguments.interval if stream == "hinge" else None
            reply = connection.subscribe(stream, interval)
            if sensor and reply.fields.get("available") is False and not arguments.json:
                print(f"# no {sensor} sensor now: {stream} values start if one appears", flush=True)
        shown = {"orientation", "deviceMotion", *optional}
        end = None if arguments.duration is None else time.monotonic() + arguments.duration
        printed = 0
        for value in connection.messages(until=end):
            if value.kind not in shown:
                continue  # availability, dropped, and types newer daemons add
            print(value.line if arguments.json else describe(value), flush=True)
            printed += isinstance(value, motiond.DeviceMotion)
            if arguments.count is not None and printed >= arguments.count:
                return


def main() -> None:
    parser = argparse.ArgumentParser(description="Print orientation changes and device-motion attitude from motiond.")
    parser.add_argument("socket", nargs="?", help="the daemon's socket (default: $MOTIOND_SOCKET, else /run/motiond/motiond.sock)")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between device-motion values (default 0.1)")
    parser.add_argument("--frame", default="xArbitraryZVertical", help="reference frame of device motion")
    parser.add_argument("--latency", type=float, default=0, help="seconds device-motion values may wait to come in batches (0-10)")
    parser.add_argument("--surroundings", action="store_true", help="also print tilt, ambient light and proximity")
    parser.add_argument("--light-interval", type=float, default=1, help="seconds between light values (default 1, at least 0.1)")
    parser.add_argument("--convertible", action="store_true", help="also print a convertible's hinge angle and posture")
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
    status = {motiond.Goodbye: 75, motiond.DaemonUnreachable: 69, motiond.ProtocolMismatch: 76,
              motiond.AccessDenied: 77, motiond.DaemonError: 1}
    try:
        run(arguments)
    except motiond.MotionError as error:
        print(f"motion_client: {error}", file=sys.stderr)
        sys.exit(next(code for kind, code in status.items() if isinstance(error, kind)))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
