#!/usr/bin/env python3
"""Orientation changes and device-motion attitude from motiond, with the ``motiond`` package
(Debian: python3-motiond; from a checkout: ``pip install ./clients/python``).

    python3 motion_client.py                     # $MOTIOND_SOCKET, else /run/motiond/motiond.sock
    python3 motion_client.py /tmp/motiond.sock --count 5 --interval 0.05
    python3 motion_client.py --latency 1         # device motion in batches, once a second
    python3 motion_client.py --surroundings      # also tilt, ambient light and proximity
    python3 motion_client.py --convertible       # also a 2-in-1's hinge angle and posture

The messages exactly as the daemon sends them: ``python3 -m motiond monitor --json``.
Exit status as motionctl's: 0 done, 1 a request rejected (the daemon's reason on stderr),
69 motiond unreachable or gone, 75 it said goodbye, 76 another protocol, 77 access refused.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Optional

try:
    import motiond
except ModuleNotFoundError as error:
    if error.name != "motiond":
        raise
    sys.exit("motion_client: the motiond package is not installed: "
             "install python3-motiond, or pip install ./clients/python")


def fixed(value: Optional[float], spec: str) -> str:
    """A number in ``spec``'s format, or ``-`` for one JSON could not carry (None)."""
    return "-" if value is None else format(value, spec)


def degrees(radians: Optional[float]) -> str:
    """An angle in radians as signed degrees."""
    return fixed(None if radians is None else math.degrees(radians), "+7.2f") + "°"


#: What is printed for each kind of value (after its timestamp).
DESCRIPTIONS = {
    motiond.DeviceMotion: lambda m: f"attitude roll={degrees(m.attitude.roll)} pitch={degrees(m.attitude.pitch)} "
                                    f"yaw={degrees(m.attitude.yaw)}",
    motiond.OrientationChange: lambda m: f"orientation {m.orientation}",
    motiond.TiltChange: lambda m: f"tilt {m.tilt}",
    motiond.LightLevel: lambda m: f"light {fixed(m.lux, '.1f')} lux",
    motiond.ProximityChange: lambda m: f"proximity {'near' if m.near else 'far'} "
                                       f"({fixed(m.level, '.2f')} × near level)",
    motiond.HingeAngle: lambda m: f"hinge {fixed(m.angle, '.1f')}° ({m.accuracy})",
    motiond.PostureChange: lambda m: f"posture {m.posture}",
}


def run(options: argparse.Namespace) -> None:
    """Subscribes, then prints until --count device-motion values, --duration seconds, or forever."""
    with motiond.Connection(options.socket) as motion:
        hello = motion.hello
        sensors = ", ".join(name for name in hello.sensors if hello.is_available(name)) or "none"
        print(f"# connected to {hello.daemon} at {motion.path}: sensors {sensors}; access {hello.describe_access()}",
              flush=True)
        motion.subscribe("orientation")
        motion.subscribe("deviceMotion", options.interval, latency=options.latency, frame=options.frame)
        extra = {}  # stream: its interval (None: the stream has none)
        if options.surroundings:
            extra.update(tilt=None, light=options.light_interval, proximity=None)
        if options.convertible:
            extra.update(hinge=options.interval, posture=None)
        for stream, interval in extra.items():
            if motion.subscribe(stream, interval).fields.get("available") is False:
                missing = ", ".join(hello.missing_sensors(stream)) or "needed"
                print(f"# no {missing} sensor now: {stream} values start if one appears", flush=True)
        end = None if options.duration is None else time.monotonic() + options.duration
        motions = 0
        for message in motion.messages(until=end):
            describe = DESCRIPTIONS.get(type(message))
            if describe is not None:
                print(f"{message.timestamp:14.6f}  {describe(message)}", flush=True)
            if isinstance(message, motiond.DeviceMotion):
                motions += 1
                if motions == options.count:
                    return


def main() -> None:
    parser = argparse.ArgumentParser(description="Print orientation changes and device-motion attitude from motiond.")
    parser.add_argument("socket", nargs="?", help="the daemon's socket (default: $MOTIOND_SOCKET, else "
                                                  f"{motiond.DEFAULT_SOCKET})")
    parser.add_argument("--interval", type=float, default=0.1,
                        help="seconds between device-motion values (default 0.1)")
    parser.add_argument("--frame", default="xArbitraryZVertical",
                        help="reference frame: xArbitraryZVertical (default), xArbitraryCorrectedZVertical, "
                             "xMagneticNorthZVertical, xTrueNorthZVertical")
    parser.add_argument("--latency", type=float, default=0,
                        help="seconds device-motion values may wait to come together in batches (beyond Core "
                             "Motion: Android's maximum report latency; default 0: each at once, at most 10)")
    parser.add_argument("--surroundings", action="store_true", help="also print tilt, ambient light and proximity")
    parser.add_argument("--light-interval", type=float, default=1,
                        help="seconds between ambient light values with --surroundings (default 1, at least 0.1)")
    parser.add_argument("--convertible", action="store_true",
                        help="also print a convertible's hinge angle (every --interval seconds) and posture")
    parser.add_argument("--count", type=int, help="stop after this many device-motion values")
    parser.add_argument("--duration", type=float, help="stop after this many seconds")
    options = parser.parse_args()
    if options.count is not None and options.count < 1:
        parser.error("--count must be at least 1")
    try:
        run(options)
    except motiond.MotionError as error:
        print(f"motion_client: {error}", file=sys.stderr)
        sys.exit(error.exit_status)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
