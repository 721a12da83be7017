"""motiond.Connection against a real daemon: hello, subscribe, get with its age, errors."""

from __future__ import annotations

import time
import unittest

import motiond
from support import DaemonTestCase


class ConnectionTests(DaemonTestCase):
    def test_hello_is_typed_and_names_the_sensors(self) -> None:
        daemon = self.start("sim:")
        with motiond.Connection(daemon.socket) as connection:
            hello = connection.hello
            self.assertIsInstance(hello, motiond.Hello)
            self.assertEqual(hello.protocol, motiond.PROTOCOL_VERSION)
            self.assertTrue(hello.daemon.startswith("motiond "), hello.daemon)
            self.assertTrue(hello.is_available("accelerometer") and hello.is_available("gyroscope"))
            self.assertIn("xArbitraryZVertical", hello.frames)
            self.assertEqual(connection.status()["source"], "sim:")

    def test_subscribed_values_are_typed_with_core_motion_units(self) -> None:
        daemon = self.start_still()
        with motiond.Connection(daemon.socket) as connection:
            reply = connection.subscribe("accelerometer", 0.05)
            self.assertEqual(reply.fields["interval"], 0.05)
            self.assertTrue(reply.fields["available"])
            value = next(m for m in connection.messages(time.monotonic() + 10) if m.kind == "accelerometer")
            self.assertIsInstance(value, motiond.AccelerometerData)
            # Face up at rest: about -1 G on z (the gravity-vector sign).
            self.assertAlmostEqual(value.acceleration.z, -1.0, delta=0.1)
            self.assertTrue(value.line.startswith('{"type":"accelerometer"'))

    def test_batching_latency_is_granted(self) -> None:
        daemon = self.start_still()
        with motiond.Connection(daemon.socket) as connection:
            reply = connection.subscribe("accelerometer", 0.01, latency=0.3)
            self.assertEqual(reply.fields.get("latency"), 0.3)
            values = []
            for message in connection.messages(time.monotonic() + 15):
                if isinstance(message, motiond.AccelerometerData):
                    values.append(message.timestamp)
                if len(values) >= 20:
                    break
            self.assertEqual(len(values), 20)
            self.assertEqual(values, sorted(values))

    def test_get_carries_the_value_and_its_age(self) -> None:
        daemon = self.start_still()
        with motiond.Connection(daemon.socket) as connection:
            with self.assertRaises(motiond.DaemonError) as refused:
                connection.get("accelerometer")  # nothing subscribed: no value yet
            self.assertEqual(refused.exception.code, "noSample")
            connection.subscribe("accelerometer", 0.05)
            next(m for m in connection.messages(time.monotonic() + 10) if m.kind == "accelerometer")
            pulled = connection.get("accelerometer")
            self.assertIsInstance(pulled.value, motiond.AccelerometerData)
            self.assertIsNotNone(pulled.age)
            self.assertGreaterEqual(pulled.age, 0)

    def test_errors_name_the_daemons_reply(self) -> None:
        daemon = self.start("sim:")
        with motiond.Connection(daemon.socket) as connection:
            with self.assertRaises(motiond.DaemonError) as shake:
                connection.get("shake")
            self.assertEqual(shake.exception.code, "notPullable")
            self.assertIn("get shake", str(shake.exception))
            self.assertIn("(notPullable)", str(shake.exception))
            with self.assertRaises(motiond.FrameUnavailable) as frame:
                connection.subscribe("deviceMotion", frame="xTrueNorthZVertical")
            self.assertEqual(frame.exception.code, "frameUnavailable")
            self.assertIn("subscribe deviceMotion", str(frame.exception))
            with self.assertRaises(motiond.DaemonError) as latency:
                connection.subscribe("shake", latency=1)
            self.assertEqual(latency.exception.code, "invalidValue")
            self.assertIn("latency", latency.exception.message)

    def test_no_daemon_is_unreachable(self) -> None:
        with self.assertRaises(motiond.DaemonUnreachable) as error:
            motiond.Connection(f"{self.directory}/nobody.sock")
        self.assertIn("cannot reach motiond", str(error.exception))

    def test_a_stopping_daemon_says_goodbye(self) -> None:
        daemon = self.start("sim:")
        with motiond.Connection(daemon.socket) as connection:
            connection.subscribe("orientation")
            daemon.process.terminate()
            with self.assertRaises(motiond.Goodbye):
                for _ in connection.messages(time.monotonic() + 20):
                    pass


if __name__ == "__main__":
    unittest.main()
