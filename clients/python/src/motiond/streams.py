"""The sensors each stream needs (docs/PROTOCOL.md §6), and which of them are absent."""

from __future__ import annotations

from typing import Any, Dict, List

#: The sensors each stream needs (``deviceMotion`` in its arbitrary frame).
STREAM_SENSORS: Dict[str, List[str]] = {
    "accelerometer": ["accelerometer"], "gyro": ["gyroscope"], "magnetometer": ["magnetometer"],
    "deviceMotion": ["accelerometer", "gyroscope"], "heading": ["accelerometer", "gyroscope", "magnetometer"],
    "orientation": ["accelerometer"], "tilt": ["accelerometer"], "shake": ["accelerometer"],
    "gesture": ["accelerometer"], "light": ["light"], "proximity": ["proximity"],
    "baseAccelerometer": ["baseAccelerometer"], "baseGyro": ["baseGyroscope"],
    "hinge": ["accelerometer", "baseAccelerometer"], "posture": ["accelerometer", "baseAccelerometer"],
    "availability": [], "calibration": [],
}


def missing_sensors(stream: str, sensors: Dict[str, Dict[str, Any]]) -> List[str]:
    """The sensors ``stream`` needs that ``sensors`` (name → state, as the hello and the status
    give them) does not report available, in the order the stream needs them."""
    return [sensor for sensor in STREAM_SENSORS.get(stream, []) if not sensors.get(sensor, {}).get("available")]
