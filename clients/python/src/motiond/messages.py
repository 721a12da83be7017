"""What motiond sends, as typed dataclasses (docs/PROTOCOL.md §4).

Units and signs are Core Motion's: acceleration in G with the gravity-vector sign (face up at
rest reads ``z ≈ -1``), rotation rate in rad/s (right-hand rule), magnetic field in µT, angles
of the attitude in radians, headings and the hinge angle in degrees. Vectors are in the device
frame: +x the right edge, +y the top edge, +z out of the screen. Timestamps are seconds since
boot on ``CLOCK_BOOTTIME`` (``time.clock_gettime(time.CLOCK_BOOTTIME)``), like
``CMLogItem.timestamp``. A value JSON cannot carry (not finite) arrives as ``None``.

Every message keeps the line it came in as ``line`` (``motionctl monitor --json`` prints it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from .errors import ProtocolMismatch
from .streams import missing_sensors
from .wire import MINIMUM_INTERVAL


class Message:
    """Base of every message: ``kind`` is its ``type`` (for pushed values, the stream's name),
    ``line`` the JSON line exactly as the daemon sent it."""

    kind: str = ""
    line: str = ""


@dataclass
class Vector:
    """A vector in the device frame (units: those of the field it is in)."""

    x: Optional[float]
    y: Optional[float]
    z: Optional[float]

    def as_array(self) -> Any:
        """The vector as a numpy array of 3 floats (``numpy`` must be installed; it is optional)."""
        import numpy  # optional dependency, imported only here

        return numpy.array([self.x, self.y, self.z], dtype=float)


@dataclass
class Quaternion:
    """A unit quaternion rotating device-frame vectors into the reference frame."""

    w: Optional[float]
    x: Optional[float]
    y: Optional[float]
    z: Optional[float]


@dataclass
class Attitude:
    """The device's attitude: the quaternion and Core Motion's Z-X-Y Euler angles (radians)."""

    quaternion: Quaternion
    roll: Optional[float]
    pitch: Optional[float]
    yaw: Optional[float]


@dataclass
class CalibratedField:
    """The calibrated magnetic field (µT) and how far to trust it
    (``uncalibrated``, ``low``, ``medium``, ``high``)."""

    field: Vector
    accuracy: str


@dataclass
class AccelerometerData(Message):
    """Stream ``accelerometer`` (or ``baseAccelerometer``: ``base`` is then true): G."""

    timestamp: float
    acceleration: Vector
    base: bool = False


@dataclass
class GyroData(Message):
    """Stream ``gyro`` (or ``baseGyro``): rad/s, raw (bias not removed)."""

    timestamp: float
    rotation_rate: Vector
    base: bool = False


@dataclass
class MagnetometerData(Message):
    """Stream ``magnetometer``: µT, raw (uncalibrated)."""

    timestamp: float
    magnetic_field: Vector


@dataclass
class DeviceMotion(Message):
    """Stream ``deviceMotion``: the fused attitude, bias-free rotation rate (rad/s), gravity
    (unit, G) and user acceleration (G), the calibrated field and the heading (degrees clockwise
    from north of the top edge in the north frames, -1 in the arbitrary ones)."""

    timestamp: float
    frame: str
    attitude: Attitude
    rotation_rate: Vector
    gravity: Vector
    user_acceleration: Vector
    magnetic_field: CalibratedField
    heading: Optional[float]


@dataclass
class Heading(Message):
    """Stream ``heading``: degrees; ``heading_accuracy`` -1 uncalibrated, ``true_heading`` -1
    without a declination."""

    timestamp: float
    heading: Optional[float]
    magnetic_heading: Optional[float]
    true_heading: Optional[float]
    heading_accuracy: Optional[float]
    orientation: str
    field: Vector


@dataclass
class OrientationChange(Message):
    """Stream ``orientation``: ``UIDeviceOrientation`` names (``portrait``, ``faceUp``, …)."""

    timestamp: float
    orientation: str


@dataclass
class TiltChange(Message):
    """Stream ``tilt``: ``vertical``, ``tiltedUp``, ``tiltedDown``, ``faceUp``, ``faceDown``."""

    timestamp: float
    tilt: str


@dataclass
class Shake(Message):
    """Stream ``shake``: ``phase`` is ``began``, then ``ended`` or ``cancelled``."""

    timestamp: float
    phase: str


@dataclass
class Gesture(Message):
    """Stream ``gesture``: ``faceUp``, ``faceDown``, ``slapLeft``, ``slapRight``, ``tap``,
    ``doubleTap``, ``rest``, ``motion`` (docs/EVENTS.md)."""

    timestamp: float
    gesture: str


@dataclass
class PostureChange(Message):
    """Stream ``posture`` (a convertible): ``unknown``, ``closed``, ``laptop``, ``flat``,
    ``tent``, ``stand``, ``tablet``."""

    timestamp: float
    posture: str


@dataclass
class HingeAngle(Message):
    """Stream ``hinge`` (a convertible): degrees, 0 closed, 180 flat, 360 a tablet;
    ``accuracy`` ``high``, ``low`` or ``held``."""

    timestamp: float
    angle: Optional[float]
    accuracy: str


@dataclass
class LightLevel(Message):
    """Stream ``light``: lux (a 0-100 level when the sensor's unit is ``vendor``)."""

    timestamp: float
    lux: Optional[float]


@dataclass
class ProximityChange(Message):
    """Stream ``proximity``: whether something is near, and the reading that decided it (in
    units of the sensor's near level)."""

    timestamp: float
    near: bool
    level: Optional[float]


@dataclass
class Availability(Message):
    """A sensor appeared, disappeared, started or stopped being read. ``period`` is the
    hardware's seconds between samples while it is read."""

    sensor: str
    available: bool
    reason: str
    mode: Optional[str] = None
    period: Optional[float] = None
    location: Optional[str] = None
    unit: Optional[str] = None


@dataclass
class Calibration(Message):
    """The magnetometer calibration's accuracy changed."""

    accuracy: str
    calibration_needed: bool


@dataclass
class Dropped(Message):
    """This client read too slowly and lost ``count`` values of ``stream`` (``total`` since it
    connected)."""

    stream: str
    count: int
    total: int


@dataclass
class Hello(Message):
    """The first message of a connection: the daemon, its sensors (name → state dict), the
    frames it can serve now, its streams, and what this connection may receive (``access``)."""

    protocol: int
    daemon: str
    sensors: Dict[str, Dict[str, Any]]
    frames: List[str]
    streams: List[str]
    access: Dict[str, Any]

    def is_available(self, sensor: str) -> bool:
        """Whether the named sensor (``accelerometer``, ``gyroscope``, …) is present."""
        return bool(self.sensors.get(sensor, {}).get("available"))

    def missing_sensors(self, stream: str) -> List[str]:
        """The sensors ``stream`` needs that are absent (``["baseAccelerometer"]`` for ``hinge``
        on a slate); empty when it can be served."""
        return missing_sensors(stream, self.sensors)

    def describe_access(self) -> str:
        """What this connection may receive, as motiond logs it: ``full (every stream)``,
        ``activeSession (every stream, at most 50 Hz)``, ``coarse (orientation, tilt, shake,
        availability)``; ``not stated`` by a daemon before access control."""
        if not self.access:
            return "not stated"
        streams = self.access.get("streams", [])
        what = "every stream" if set(streams) >= set(self.streams) else ", ".join(streams)
        minimum = self.access.get("minimumInterval", MINIMUM_INTERVAL)
        cap = f", at most {1 / minimum:g} Hz" if minimum > MINIMUM_INTERVAL else ""
        return f"{self.access.get('tier')} ({what}{cap})"


@dataclass
class Reply(Message):
    """The answer to a request; ``fields`` holds its result fields (``interval``,
    ``available``, ``sample``, ``age``, ``status``, …), ``error`` its error object."""

    id: Optional[int]
    ok: bool
    fields: Dict[str, Any]
    error: Optional[Dict[str, Any]] = None


@dataclass
class GoodbyeMessage(Message):
    """The daemon closes the connection, and why."""

    reason: str


@dataclass
class UnknownMessage(Message):
    """A message type this client does not know (a newer daemon's); skip it."""

    type: str
    raw: Dict[str, Any] = field(repr=False)


def _vector(value: Any) -> Vector:
    value = value or {}
    return Vector(value.get("x"), value.get("y"), value.get("z"))


def _device_motion(m: Dict[str, Any]) -> DeviceMotion:
    attitude = m.get("attitude") or {}
    q = attitude.get("quaternion") or {}
    field_ = m.get("magneticField") or {}
    return DeviceMotion(
        m["timestamp"], m.get("frame", ""),
        Attitude(Quaternion(q.get("w"), q.get("x"), q.get("y"), q.get("z")),
                 attitude.get("roll"), attitude.get("pitch"), attitude.get("yaw")),
        _vector(m.get("rotationRate")), _vector(m.get("gravity")), _vector(m.get("userAcceleration")),
        CalibratedField(_vector(field_.get("field")), field_.get("accuracy", "uncalibrated")), m.get("heading"))


_PARSERS: Dict[str, Callable[[Dict[str, Any]], Message]] = {
    "hello": lambda m: Hello(m.get("protocol", 0), m.get("daemon", ""), m.get("sensors", {}), m.get("frames", []),
                             m.get("streams", []), m.get("access", {})),
    "reply": lambda m: Reply(m.get("id"), bool(m.get("ok")),
                             {k: v for k, v in m.items() if k not in ("type", "id", "ok", "error")}, m.get("error")),
    "accelerometer": lambda m: AccelerometerData(m["timestamp"], _vector(m.get("acceleration"))),
    "baseAccelerometer": lambda m: AccelerometerData(m["timestamp"], _vector(m.get("acceleration")), base=True),
    "gyro": lambda m: GyroData(m["timestamp"], _vector(m.get("rotationRate"))),
    "baseGyro": lambda m: GyroData(m["timestamp"], _vector(m.get("rotationRate")), base=True),
    "magnetometer": lambda m: MagnetometerData(m["timestamp"], _vector(m.get("magneticField"))),
    "deviceMotion": _device_motion,
    "heading": lambda m: Heading(m["timestamp"], m.get("heading"), m.get("magneticHeading"), m.get("trueHeading"),
                                 m.get("headingAccuracy"), m.get("orientation", "portrait"), _vector(m.get("field"))),
    "orientation": lambda m: OrientationChange(m["timestamp"], m["orientation"]),
    "tilt": lambda m: TiltChange(m["timestamp"], m["tilt"]),
    "shake": lambda m: Shake(m["timestamp"], m["phase"]),
    "gesture": lambda m: Gesture(m["timestamp"], m["gesture"]),
    "posture": lambda m: PostureChange(m["timestamp"], m["posture"]),
    "hinge": lambda m: HingeAngle(m["timestamp"], m.get("angle"), m.get("accuracy", "low")),
    "light": lambda m: LightLevel(m["timestamp"], m.get("lux")),
    "proximity": lambda m: ProximityChange(m["timestamp"], bool(m.get("near")), m.get("level")),
    "availability": lambda m: Availability(m["sensor"], bool(m.get("available")), m.get("reason", ""), m.get("mode"),
                                           m.get("period"), m.get("location"), m.get("unit")),
    "calibration": lambda m: Calibration(m.get("accuracy", "uncalibrated"), bool(m.get("calibrationNeeded"))),
    "dropped": lambda m: Dropped(m.get("stream", ""), m.get("count", 0), m.get("total", 0)),
    "goodbye": lambda m: GoodbyeMessage(m.get("reason", "")),
}


def parse_object(message: Dict[str, Any], line: str = "") -> Message:
    """The typed message of a decoded JSON object; unknown types become :class:`UnknownMessage`.
    Raises :class:`ProtocolMismatch` naming the type when a known message lacks a field."""
    kind = message.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        result: Message = UnknownMessage(str(kind), message)
    else:
        try:
            result = parser(message)
        except (KeyError, TypeError, AttributeError) as error:
            raise ProtocolMismatch(f"motiond sent a {kind} message without a readable {error}: {line[:200]}") from None
    result.kind, result.line = str(kind), line
    return result


def parse_line(line: bytes) -> Message:
    """The typed message of one line from the daemon (with or without its line feed)."""
    text = line.decode("utf-8", errors="replace").rstrip("\r\n")
    try:
        message = json.loads(text)
    except ValueError as error:
        raise ProtocolMismatch(f"motiond sent a line that is not JSON: {error}") from None
    if not isinstance(message, dict):
        raise ProtocolMismatch("motiond sent a line that is not a JSON object")
    return parse_object(message, text)


#: Streams whose values are samples at an interval (``latency`` applies only to these).
SAMPLE_STREAMS = frozenset({"accelerometer", "gyro", "magnetometer", "deviceMotion", "heading", "light",
                            "baseAccelerometer", "baseGyro", "hinge"})


@dataclass
class PullResult:
    """The answer to ``get``: the latest value, in the type it is pushed as, and ``age``, the
    seconds between its measurement and the reply (``None`` from a daemon before 0.19.0, and
    for values without a timestamp): a value of sensors idle for a minute is a minute old."""

    value: Message
    age: Optional[float]

    @staticmethod
    def from_reply(reply: Reply) -> "PullResult":
        """The pull result carried by a successful ``get`` reply."""
        sample = reply.fields.get("sample")
        if not isinstance(sample, dict):
            raise ProtocolMismatch("motiond answered get without a sample")
        return PullResult(parse_object(sample, json.dumps(sample, separators=(",", ":"))), reply.fields.get("age"))
