"""A client of motiond, Core Motion for Linux, over its socket protocol (docs/PROTOCOL.md).

- :class:`MotionManager`: Core Motion's style (``start_device_motion_updates(handler)``,
  ``device_motion``, ``observe_orientation``), handlers on a background thread;
- :class:`AsyncMotionManager`: the same for ``asyncio`` (``async for m in
  motion.device_motion_updates()``);
- both reconnect with back-off when the daemon restarts and subscribe again;
- :class:`Connection`: one plain blocking connection, for scripts;
- ``python3 -m motiond monitor STREAM…``: ``motionctl monitor`` in Python.

Values are typed dataclasses with Core Motion's units and signs (:mod:`motiond.messages`);
errors name the daemon's reply (:class:`DaemonError` with its ``code`` and ``message``).
Standard library only; ``Vector.as_array()`` uses numpy when it is installed.
"""

from .aio import AsyncMotionManager, Observation
from .backoff import Backoff
from .connection import Connection
from .errors import (AccessDenied, DaemonError, DaemonUnreachable, FrameUnavailable, Goodbye, MotionError,
                     ProtocolMismatch, SensorUnavailable)
from .manager import MotionManager
from .messages import (AccelerometerData, Attitude, Availability, CalibratedField, Calibration, DeviceMotion, Dropped,
                       Gesture, GyroData, Heading, Hello, HingeAngle, LightLevel, MagnetometerData, Message,
                       OrientationChange, PostureChange, ProximityChange, PullResult, Quaternion, Reply, Shake,
                       TiltChange, UnknownMessage, Vector)
from .wire import DEFAULT_SOCKET, PROTOCOL_VERSION

__version__ = "0.19.0"

__all__ = [
    "AsyncMotionManager", "MotionManager", "Connection", "Observation", "Backoff",
    "MotionError", "DaemonUnreachable", "Goodbye", "ProtocolMismatch", "SensorUnavailable", "DaemonError",
    "AccessDenied", "FrameUnavailable",
    "Message", "Vector", "Quaternion", "Attitude", "CalibratedField", "AccelerometerData", "GyroData",
    "MagnetometerData", "DeviceMotion", "Heading", "OrientationChange", "TiltChange", "Shake", "Gesture",
    "PostureChange", "HingeAngle", "LightLevel", "ProximityChange", "Availability", "Calibration", "Dropped",
    "Hello", "Reply", "UnknownMessage", "PullResult", "DEFAULT_SOCKET", "PROTOCOL_VERSION",
]
