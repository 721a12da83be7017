"""motiond.MotionManager (synchronous, handlers on its thread) against a real daemon."""

from __future__ import annotations

import queue
import unittest
from typing import Optional

import motiond
from support import DaemonTestCase

PATIENCE = 20


class MotionManagerTests(DaemonTestCase):
    def manager(self, socket: str) -> motiond.MotionManager:
        manager = motiond.MotionManager(socket)
        self.addCleanup(manager.close)
        return manager

    def test_accelerometer_updates_reach_the_handler_and_the_property(self) -> None:
        daemon = self.start_still()
        motion = self.manager(daemon.socket)
        received: "queue.Queue[object]" = queue.Queue()
        motion.start_accelerometer_updates(lambda value, error: received.put(value or error), interval=0.05)
        self.assertTrue(motion.is_accelerometer_active)
        value = received.get(timeout=PATIENCE)
        self.assertIsInstance(value, motiond.AccelerometerData)
        self.assertAlmostEqual(value.acceleration.z, -1.0, delta=0.1)
        self.assertIsNotNone(motion.accelerometer_data)
        motion.stop_accelerometer_updates()
        self.assertFalse(motion.is_accelerometer_active)

    def test_a_handler_may_read_the_manager_and_is_told_what_it_cannot_do(self) -> None:
        daemon = self.start_still()
        motion = self.manager(daemon.socket)
        seen: "queue.Queue[object]" = queue.Queue()

        def handler(value: object, error: object) -> None:
            try:
                seen.put((motion.is_available("accelerometer"), motion.accelerometer_data is not None,
                          motion.sensors["accelerometer"]["available"]))
                motion.get("accelerometer")
            except RuntimeError as refusal:
                seen.put(str(refusal))
            motion.stop_accelerometer_updates()
        motion.start_accelerometer_updates(handler, interval=0.05)
        self.assertEqual(seen.get(timeout=PATIENCE), (True, True, True))
        self.assertIn("get() called in a handler", seen.get(timeout=PATIENCE))
        self.assertFalse(motion.is_accelerometer_active)

    def test_device_motion_without_a_handler_keeps_the_latest_value(self) -> None:
        daemon = self.start_still()
        motion = self.manager(daemon.socket)
        motion.start_device_motion_updates(interval=0.05)
        values = motion.updates("deviceMotion", timeout=PATIENCE, interval=0.05)
        first = next(values)
        values.close()
        self.assertIsInstance(first, motiond.DeviceMotion)
        self.assertIsNotNone(motion.device_motion)
        pulled = motion.get("deviceMotion")
        self.assertIsInstance(pulled.value, motiond.DeviceMotion)
        self.assertGreaterEqual(pulled.age, 0)

    def test_orientation_and_availability_events(self) -> None:
        daemon = self.start_still()
        motion = self.manager(daemon.socket)
        orientations: "queue.Queue[motiond.OrientationChange]" = queue.Queue()
        observation = motion.observe_orientation(lambda value, error: value and orientations.put(value))
        self.assertEqual(orientations.get(timeout=PATIENCE).orientation, "faceUp")
        observation.cancel()
        sensors: "queue.Queue[motiond.Availability]" = queue.Queue()
        motion.observe_availability(lambda value, error: value and sensors.put(value))
        first = sensors.get(timeout=PATIENCE)
        self.assertIsInstance(first, motiond.Availability)
        self.assertTrue(motion.is_available("accelerometer"))
        self.assertFalse(motion.is_available("hinge"))  # a replayed slate has no base

    def test_missing_magnetometer_is_reported_to_the_handler(self) -> None:
        daemon = self.start("sim:", ["--sensors", "accelerometer", "gyroscope"])
        motion = self.manager(daemon.socket)
        errors: "queue.Queue[Optional[motiond.MotionError]]" = queue.Queue()
        motion.start_magnetometer_updates(lambda value, error: errors.put(error))
        error = errors.get(timeout=PATIENCE)
        self.assertIsInstance(error, motiond.SensorUnavailable)
        self.assertIn("magnetometer", str(error))

    def test_shake_phases_and_convertible_events_reach_their_handlers(self) -> None:
        # The simulated IMU's script shakes the device once a loop (about 15 s in).
        daemon = self.start("sim:")
        motion = self.manager(daemon.socket)
        phases: "queue.Queue[str]" = queue.Queue()
        motion.observe_shake(lambda value, error: value and phases.put(value.phase))
        self.assertEqual(phases.get(timeout=60), "began")
        self.assertEqual(phases.get(timeout=PATIENCE), "ended")

        laptop = self.start_laptop()
        convertible = self.manager(laptop.socket)
        events: "queue.Queue[object]" = queue.Queue()
        convertible.observe_posture(lambda value, error: events.put(value or error))
        self.assertEqual(events.get(timeout=PATIENCE).posture, "laptop")
        angles: "queue.Queue[object]" = queue.Queue()
        convertible.observe_hinge(lambda value, error: angles.put(value or error), interval=0.2)
        self.assertAlmostEqual(angles.get(timeout=PATIENCE).angle, 90, delta=5)

    def test_unreachable_daemon_is_named(self) -> None:
        motion = self.manager(f"{self.directory}/nobody.sock")
        with self.assertRaises(motiond.DaemonUnreachable) as error:
            motion.wait_connected(timeout=0.5)
        self.assertIn("nobody.sock", str(error.exception))


if __name__ == "__main__":
    unittest.main()
