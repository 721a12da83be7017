"""motiond.AsyncMotionManager against a real daemon: streams, events, pulls, reconnection."""

from __future__ import annotations

import asyncio
import unittest
from typing import List, Optional

import motiond
from support import DaemonTestCase

#: A generous bound for anything the daemon should do soon (the machine may be busy).
PATIENCE = 20


class AsyncMotionManagerTests(DaemonTestCase):
    def run_async(self, coroutine) -> None:
        asyncio.run(asyncio.wait_for(coroutine, 60))

    def test_device_motion_and_orientation_of_a_still_device(self) -> None:
        daemon = self.start_still()

        async def scenario() -> None:
            async with motiond.AsyncMotionManager(daemon.socket) as motion:
                values: List[motiond.DeviceMotion] = []
                async for value in motion.device_motion_updates(interval=0.05):
                    values.append(value)
                    if len(values) == 5:
                        break
                self.assertTrue(all(v.frame == "xArbitraryZVertical" for v in values))
                self.assertAlmostEqual(values[-1].gravity.z, -1.0, delta=0.05)
                self.assertLess(abs(values[-1].attitude.roll), 0.1)
                orientation = await asyncio.wait_for(motion.orientations().__anext__(), PATIENCE)
                self.assertEqual(orientation.orientation, "faceUp")
                pulled = await motion.get("deviceMotion")
                self.assertIsInstance(pulled.value, motiond.DeviceMotion)
                self.assertGreaterEqual(pulled.age, 0)
                self.assertTrue(motion.is_available("deviceMotion"))
        self.run_async(scenario())

    def test_raw_sensor_updates_in_batches(self) -> None:
        daemon = self.start_still()

        async def scenario() -> None:
            async with motiond.AsyncMotionManager(daemon.socket) as motion:
                times: List[float] = []
                async for value in motion.gyro_updates(interval=0.01, latency=0.2):
                    times.append(value.timestamp)
                    if len(times) == 30:
                        break
                gaps = [b - a for a, b in zip(times, times[1:])]
                self.assertTrue(all(0.005 < gap < 0.015 for gap in gaps), gaps)
        self.run_async(scenario())

    def test_a_missing_sensor_is_an_error_not_silence(self) -> None:
        daemon = self.start("sim:", ["--sensors", "accelerometer", "gyroscope"])

        async def scenario() -> None:
            async with motiond.AsyncMotionManager(daemon.socket) as motion:
                with self.assertRaises(motiond.SensorUnavailable) as error:
                    await motion.magnetometer_updates().__anext__()
                self.assertEqual(error.exception.stream, "magnetometer")
                self.assertIn("magnetometer", str(error.exception))
                self.assertFalse(motion.is_available("magnetometer"))
        self.run_async(scenario())

    def test_a_refused_subscription_raises_the_daemons_error(self) -> None:
        daemon = self.start("sim:")

        async def scenario() -> None:
            async with motiond.AsyncMotionManager(daemon.socket) as motion:
                with self.assertRaises(motiond.FrameUnavailable) as error:
                    await motion.device_motion_updates(frame="xTrueNorthZVertical").__anext__()
                self.assertEqual(error.exception.code, "frameUnavailable")
                with self.assertRaises(motiond.DaemonError) as pull:
                    await motion.get("gesture")
                self.assertEqual(pull.exception.code, "notPullable")
        self.run_async(scenario())

    def test_reconnects_after_the_daemon_restarts_and_subscribes_again(self) -> None:
        daemon = self.start("sim:")

        async def scenario() -> None:
            events: List[Optional[motiond.MotionError]] = []
            async with motiond.AsyncMotionManager(daemon.socket) as motion:
                motion.observe_connection(events.append)
                updates = motion.accelerometer_updates(interval=0.05)
                first = await asyncio.wait_for(updates.__anext__(), PATIENCE)
                await asyncio.get_running_loop().run_in_executor(None, daemon.stop)
                await asyncio.sleep(0.5)  # attempts fail meanwhile (back-off 0.05, 0.1, 0.2 s)
                replacement = self.start("sim:")
                self.assertEqual(replacement.socket, daemon.socket)
                # The same iterator goes on with the new daemon's values.
                while True:
                    value = await asyncio.wait_for(updates.__anext__(), PATIENCE)
                    if motion.hello is not None and value.timestamp > first.timestamp and len(events) >= 3:
                        break
                await updates.aclose()
            self.assertIsNone(events[0])
            self.assertIsInstance(events[1], motiond.DaemonUnreachable)  # the goodbye (a Goodbye)
            self.assertIsNone(events[-1])
            # One report per outage, however many attempts it took.
            self.assertEqual(sum(1 for e in events if e is not None), 1, events)
        self.run_async(scenario())

    def test_hinge_angle_and_posture_of_a_convertible(self) -> None:
        daemon = self.start_laptop()

        async def scenario() -> None:
            async with motiond.AsyncMotionManager(daemon.socket) as motion:
                posture = await asyncio.wait_for(motion.postures().__anext__(), PATIENCE)
                self.assertIsInstance(posture, motiond.PostureChange)
                self.assertEqual(posture.posture, "laptop")
                hinge = await asyncio.wait_for(motion.hinge_angles(interval=0.1).__anext__(), PATIENCE)
                self.assertIsInstance(hinge, motiond.HingeAngle)
                self.assertAlmostEqual(hinge.angle, 90, delta=5)
                self.assertTrue(motion.is_available("hinge"))
        self.run_async(scenario())

    def test_backoff_doubles_to_two_seconds_and_resets(self) -> None:
        backoff = motiond.Backoff()
        delays = [backoff.next_delay() for _ in range(8)]
        self.assertEqual(delays, [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0])
        backoff.reset()
        self.assertEqual(backoff.next_delay(), 0.05)


if __name__ == "__main__":
    unittest.main()
