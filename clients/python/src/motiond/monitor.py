"""``python3 -m motiond monitor STREAM…``: live streams of a running motiond, a line per
message, as ``motionctl monitor`` prints them (same streams, options and exit statuses)."""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import List, NoReturn, Optional

from .connection import Connection
from .errors import MotionError
from .messages import (AccelerometerData, Availability, Calibration, DeviceMotion, Dropped, Gesture, GyroData,
                       Heading, HingeAngle, LightLevel, MagnetometerData, Message, OrientationChange, PostureChange,
                       ProximityChange, SAMPLE_STREAMS, Shake, TiltChange, Vector)
from .streams import STREAM_SENSORS

#: Exit status of a wrong command line, as motionctl's (sysexits); the others are the errors' own.
EXIT_USAGE = 64
FRAMES = ["xArbitraryZVertical", "xArbitraryCorrectedZVertical", "xMagneticNorthZVertical", "xTrueNorthZVertical"]
STREAMS = list(STREAM_SENSORS)


def _fixed(value: Optional[float], decimals: int, width: int = 0, plus: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return "-".rjust(width)
    return f"{value:{'+' if plus else ''}{width}.{decimals}f}"


def _xyz(vector: Vector) -> str:
    return " ".join(f"{axis}={_fixed(getattr(vector, axis), 4, 9, True)}" for axis in "xyz")


def describe(message: Message) -> Optional[str]:
    """The line ``motionctl monitor`` prints for a message (None: nothing to print)."""
    if isinstance(message, (AccelerometerData, GyroData, MagnetometerData)):
        if isinstance(message, AccelerometerData):
            name, vector, unit = ("baseAccelerometer" if message.base else "accelerometer"), message.acceleration, "G"
        elif isinstance(message, GyroData):
            name, vector, unit = ("baseGyroscope" if message.base else "gyroscope"), message.rotation_rate, "rad/s"
        else:
            name, vector, unit = "magnetometer", message.magnetic_field, "µT"
        return f"{_fixed(message.timestamp, 6, 14)}  {name:<13} {_xyz(vector)} {unit}"
    if isinstance(message, DeviceMotion):
        def angle(radians: Optional[float]) -> str:
            return ("-" if radians is None else _fixed(math.degrees(radians), 2, 7, True)) + "°"

        def triple(v: Vector) -> str:
            return f"({_fixed(v.x, 3, plus=True)} {_fixed(v.y, 3, plus=True)} {_fixed(v.z, 3, plus=True)})"
        a = message.attitude
        heading = f" heading={_fixed(message.heading, 1, 5)}°" if (message.heading or -1) >= 0 else ""
        return (f"{_fixed(message.timestamp, 6, 14)}  roll={angle(a.roll)} pitch={angle(a.pitch)} yaw={angle(a.yaw)}  "
                f"gravity={triple(message.gravity)} user={triple(message.user_acceleration)} G{heading}  "
                f"magnetometer {message.magnetic_field.accuracy}")
    if isinstance(message, LightLevel):
        return f"{_fixed(message.timestamp, 6, 14)}  {'light':<13} {_fixed(message.lux, 1, 9)} lx"
    if isinstance(message, ProximityChange):
        return (f"{_fixed(message.timestamp, 6, 14)}  proximity     {'near' if message.near else 'far'} "
                f"({_fixed(message.level, 2)} × near level)")
    if isinstance(message, HingeAngle):
        return f"{_fixed(message.timestamp, 6, 14)}  hinge         {_fixed(message.angle, 1, 5)}° ({message.accuracy})"
    if isinstance(message, Heading):
        true = f" true {_fixed(message.true_heading, 1, 5)}°" if (message.true_heading or -1) >= 0 else ""
        accuracy = f" ±{_fixed(message.heading_accuracy, 0)}°" if (message.heading_accuracy or -1) >= 0 else " (uncalibrated)"
        edge = "" if message.orientation == "portrait" else f" ({message.orientation} edge)"
        return f"{_fixed(message.timestamp, 6, 14)}  heading magnetic {_fixed(message.magnetic_heading, 1, 5)}°{true}{accuracy}{edge}"
    for kind, attribute in ((OrientationChange, "orientation"), (TiltChange, "tilt"), (Shake, "phase"),
                            (Gesture, "gesture"), (PostureChange, "posture")):
        if isinstance(message, kind):
            name = "shake" if kind is Shake else attribute
            return f"{_fixed(message.timestamp, 3)}  {name} {getattr(message, attribute)}"  # type: ignore[attr-defined]
    if isinstance(message, Availability):
        return f"# {message.sensor} {'available' if message.available else 'unavailable'}: {message.reason}"
    if isinstance(message, Calibration):
        needed = ": move the device in a figure eight" if message.calibration_needed else ""
        return f"# magnetometer calibration {message.accuracy}{needed}"
    if isinstance(message, Dropped):
        return f"# {message.count} {message.stream} values dropped ({message.total} in all): reading too slowly"
    return None


def monitor(streams: List[str], interval: float, frame: str, duration: Optional[float], socket: Optional[str],
            wait: float, reply_timeout: float, as_json: bool) -> None:
    """Subscribes to ``streams`` and prints what arrives until ``duration`` seconds pass (or forever)."""
    with Connection(socket, timeout=reply_timeout, wait=wait) as connection:
        for stream in streams:
            connection.subscribe(stream, interval if stream in SAMPLE_STREAMS else None,
                                 frame=frame if stream == "deviceMotion" else None)
        end = None if duration is None else time.monotonic() + duration
        for message in connection.messages(until=end):
            line = message.line if as_json else describe(message)
            if line is not None and message.kind != "reply":
                print(line, flush=True)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _seconds(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text}: expected a number of seconds above 0")
    return value


def parser() -> argparse.ArgumentParser:
    """The command line: ``monitor`` and its options, as motionctl's."""
    top = _Parser(prog="python3 -m motiond", description="A client of motiond (Core Motion for Linux).")
    commands = top.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("monitor", help="show live streams of a running motiond",
                              description="Show live streams of a running motiond (default: orientation, shake, "
                                          f"device motion). Streams: {', '.join(STREAMS)}. Exit status: 0 done; "
                                          "1 failed; 64 usage; 69 motiond cannot be reached or closed the connection; "
                                          "75 it said goodbye; 76 it speaks another protocol; 77 access denied.")
    run.add_argument("streams", nargs="*", metavar="STREAM", default=["orientation", "shake", "deviceMotion"],
                     help="streams to show (default: orientation, shake, deviceMotion)")
    run.add_argument("--interval", type=_seconds, default=0.5,
                     help="seconds between values of sample streams (default: 0.5)")
    run.add_argument("--frame", choices=FRAMES, default="xArbitraryZVertical",
                     help="reference frame of device motion (default: xArbitraryZVertical)")
    run.add_argument("--duration", type=_seconds, help="stop after this many seconds")
    run.add_argument("--socket", help="the daemon's socket (default: $MOTIOND_SOCKET, else /run/motiond/motiond.sock)")
    run.add_argument("--wait", type=float, default=0.0,
                     help="keep trying to reach the daemon for this many seconds (default: 0)")
    run.add_argument("--reply-timeout", type=_seconds, default=5.0,
                     help="seconds to wait for the hello and for each reply (default: 5)")
    run.add_argument("--json", action="store_true", help="JSON lines, exactly as the daemon sends them")
    return top


def main(argv: Optional[List[str]] = None) -> None:
    """``python3 -m motiond``'s entry point."""
    command = parser()
    arguments = command.parse_args(argv)
    for stream in arguments.streams:
        if stream not in STREAMS:
            command.error(f"unknown stream {stream}: expected one of {', '.join(STREAMS)}")
    try:
        monitor(arguments.streams, arguments.interval, arguments.frame, arguments.duration, arguments.socket,
                arguments.wait, arguments.reply_timeout, arguments.json)
    except KeyboardInterrupt:
        pass
    except MotionError as error:
        print(f"motiond monitor: {error}", file=sys.stderr)
        sys.exit(error.exit_status)
