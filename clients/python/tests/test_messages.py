"""Reading the daemon's lines: typed values, unknown types skipped, bad lines named, the hello's
sensors and access; errors and their exit statuses (no daemon)."""

from __future__ import annotations

import unittest

import motiond
from motiond.messages import parse_line


class MessageTests(unittest.TestCase):
    def test_device_motion_is_typed(self) -> None:
        line = (b'{"type":"deviceMotion","timestamp":12.5,"frame":"xArbitraryZVertical","attitude":{"quaternion":'
                b'{"w":1,"x":0,"y":0,"z":0},"roll":0.1,"pitch":null,"yaw":0},"rotationRate":{"x":0,"y":0,"z":0},'
                b'"gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0,"y":0,"z":0},'
                b'"magneticField":{"field":{"x":20,"y":0,"z":-44},"accuracy":"high"},"heading":-1,"later":1}\n')
        motion = parse_line(line)
        self.assertIsInstance(motion, motiond.DeviceMotion)
        self.assertEqual(motion.kind, "deviceMotion")
        self.assertEqual(motion.attitude.roll, 0.1)
        self.assertIsNone(motion.attitude.pitch)  # not finite on the wire: null
        self.assertEqual(motion.gravity.z, -1)
        self.assertEqual(motion.magnetic_field.accuracy, "high")
        self.assertEqual(motion.line, line.decode().rstrip("\n"))

    def test_unknown_types_are_kept_apart(self) -> None:
        message = parse_line(b'{"type":"teleport","to":"mars"}\n')
        self.assertIsInstance(message, motiond.UnknownMessage)
        self.assertEqual(message.raw["to"], "mars")

    def test_bad_lines_are_named(self) -> None:
        with self.assertRaises(motiond.ProtocolMismatch) as missing:
            parse_line(b'{"type":"accelerometer","acceleration":{"x":0,"y":0,"z":-1}}\n')
        self.assertIn("accelerometer message without a readable 'timestamp'", str(missing.exception))
        with self.assertRaises(motiond.ProtocolMismatch) as garbage:
            parse_line(b"not json\n")
        self.assertIn("not JSON", str(garbage.exception))
        with self.assertRaises(motiond.ProtocolMismatch):
            parse_line(b"[1,2]\n")

    def test_error_replies_are_typed_by_code(self) -> None:
        error = motiond.errors.error_from_reply({"error": {"code": "frameUnavailable", "message": "no magnetometer"}},
                                                "subscribe deviceMotion")
        self.assertIsInstance(error, motiond.FrameUnavailable)
        self.assertEqual(str(error), "subscribe deviceMotion: no magnetometer (frameUnavailable)")
        unknown = motiond.errors.error_from_reply({"error": {"code": "newCode", "message": "m"}})
        self.assertEqual((type(unknown), unknown.code), (motiond.DaemonError, "newCode"))

    def test_errors_carry_motionctls_exit_statuses(self) -> None:
        errors = [motiond.errors.error_from_reply({"error": {"code": code, "message": "m"}})
                  for code in ("frameUnavailable", "accessDenied", "invalidRequest")]
        errors += [motiond.DaemonUnreachable("gone"), motiond.Goodbye("shutting down"), motiond.ProtocolMismatch("v2"),
                   motiond.SensorUnavailable("light", "absent")]
        self.assertEqual([error.exit_status for error in errors], [1, 77, 1, 69, 75, 76, 1])

    def test_hello_names_missing_sensors_and_access(self) -> None:
        line = (b'{"type":"hello","protocol":1,"daemon":"motiond 0.19.0","sensors":{"accelerometer":{"available":true},'
                b'"gyroscope":{"available":true},"baseAccelerometer":{"available":false,"reason":"a slate"}},'
                b'"frames":[],"streams":["orientation","tilt","hinge"],"access":{"tier":"full","streams":'
                b'["orientation","tilt","hinge"],"minimumInterval":0.01}}\n')
        hello = parse_line(line)
        self.assertIsInstance(hello, motiond.Hello)
        self.assertEqual(hello.missing_sensors("hinge"), ["baseAccelerometer"])
        self.assertEqual(hello.missing_sensors("deviceMotion"), [])
        self.assertEqual(hello.missing_sensors("light"), ["light"])  # not even listed: absent
        self.assertEqual(hello.describe_access(), "full (every stream)")
        hello.access = {"tier": "activeSession", "streams": hello.streams, "minimumInterval": 0.02}
        self.assertEqual(hello.describe_access(), "activeSession (every stream, at most 50 Hz)")
        hello.access = {"tier": "coarse", "streams": ["orientation", "tilt"], "minimumInterval": 0.01}
        self.assertEqual(hello.describe_access(), "coarse (orientation, tilt)")
        hello.access = {}
        self.assertEqual(hello.describe_access(), "not stated")


if __name__ == "__main__":
    unittest.main()
