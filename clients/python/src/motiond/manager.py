"""The synchronous motion manager: Core Motion's start/stop/handler style for programs without
an event loop."""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Callable, Dict, Iterator, Optional, TypeVar

from .aio import AsyncMotionManager, Delivery, Observation, delivered
from .errors import MotionError
from .messages import AccelerometerData, DeviceMotion, GyroData, Heading, MagnetometerData, Message, PullResult

T = TypeVar("T")
#: A Core Motion style handler: ``handler(value, None)`` for each value, ``handler(None, error)``
#: when something went wrong (the error names what).
Handler = Callable[[Optional[Any], Optional[MotionError]], None]


class MotionManager:
    """motiond's streams for ordinary (threaded) programs, as MotionClient's ``MotionManager``.

    A background thread holds the connection, reconnects with back-off when it is lost and
    subscribes again; handlers run on that thread, one at a time, in the order values arrive
    (hand work to your own thread or queue if it is slow). In a handler every property and
    ``observe``/``start``/``stop`` call works; ``get``, ``status`` and ``close`` (which wait for
    that thread) raise RuntimeError instead of hanging. Every ``start_…_updates`` keeps the
    latest value for its property (``accelerometer_data``, ``device_motion``, …) with or without
    a handler; ``stop_…_updates`` ends it. ``observe_…`` methods return an
    :class:`~motiond.Observation` to cancel.

    >>> with MotionManager() as motion:
    ...     motion.start_device_motion_updates(lambda m, error: print(m or error), interval=0.05)
    ...     time.sleep(1)
    """

    def __init__(self, socket_path: Optional[str] = None, *, timeout: float = 5.0) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="motiond-manager", daemon=True)
        self._thread.start()
        self._async = AsyncMotionManager(socket_path, timeout=timeout)
        self._updates: Dict[str, Observation] = {}
        self._latest: Dict[str, Message] = {}
        self._lock = threading.Lock()
        self._call(self._async.start)

    @property
    def path(self) -> str:
        """The daemon's socket."""
        return self._async.path

    def __enter__(self) -> "MotionManager":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Ends every subscription, closes the connection and stops the thread."""
        if self._loop.is_closed():
            return
        self._wait(self._async.close(), "close")
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def _call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Runs ``function`` on the manager's thread and returns its result (directly when
        called there, from a handler: waiting for the thread from itself would hang)."""
        if threading.current_thread() is self._thread:
            return function(*args, **kwargs)

        async def run() -> T:
            return function(*args, **kwargs)
        return asyncio.run_coroutine_threadsafe(run(), self._loop).result()

    def _wait(self, coroutine: Any, what: str) -> Any:
        """Runs a request on the manager's thread and waits for its answer; refused in a handler,
        where the answer could never come (it is read by the thread the handler blocks)."""
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError(f"MotionManager.{what}() called in a handler would wait forever for the thread "
                               "that runs the handler: call it from another thread, or use AsyncMotionManager")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    # ---- connection and pulls ---------------------------------------------------------------------

    def wait_connected(self, timeout: Optional[float] = None) -> Any:
        """Blocks until connected and returns the hello, or raises why it could not connect."""
        return self._wait(self._async.wait_connected(timeout), "wait_connected")

    @property
    def is_connected(self) -> bool:
        """Whether a connection is up."""
        return self._async.is_connected

    def observe_connection(self, handler: Callable[[Optional[MotionError]], None]) -> Observation:
        """Calls ``handler(None)`` on every connection, ``handler(error)`` on every loss."""
        return self._observation(self._call(self._async.observe_connection, handler))

    def get(self, stream: str, *, frame: Optional[str] = None, orientation: Optional[str] = None) -> PullResult:
        """The daemon's latest value of ``stream`` and its ``age`` in seconds (a pull: it starts
        no sensor; the error ``noSample`` when there is none yet)."""
        return self._wait(self._async.get(stream, frame=frame, orientation=orientation), "get")

    def status(self) -> Dict[str, Any]:
        """The daemon's status object (docs/PROTOCOL.md §3.4)."""
        return self._wait(self._async.status(), "status")

    def is_available(self, stream: str) -> bool:
        """Whether every sensor ``stream`` needs is present now."""
        return self._call(self._async.is_available, stream)

    @property
    def sensors(self) -> Dict[str, Dict[str, Any]]:
        """Each sensor's latest availability, as the daemon reported it."""
        return self._call(lambda: dict(self._async.sensors))

    # ---- generic -----------------------------------------------------------------------------------

    def _observation(self, inner: Observation) -> Observation:
        return Observation(lambda: self._call(inner.cancel))

    def observe(self, stream: str, handler: Handler, **params: Any) -> Observation:
        """Calls ``handler(value, None)`` with each value of ``stream`` and ``handler(None,
        error)`` with each error about it (``params``: ``interval``, ``latency``, ``frame``, …)."""
        def listener(delivery: Delivery) -> None:
            if isinstance(delivery, MotionError):
                handler(None, delivery)
            else:
                handler(delivery, None)
        return self._observation(self._call(self._async.observe, stream, listener, **params))

    def updates(self, stream: str, timeout: Optional[float] = None, **params: Any) -> Iterator[Message]:
        """The values of ``stream`` as a blocking iterator; it ends when no value came for
        ``timeout`` seconds (None: never) and raises :class:`~motiond.DaemonError` or
        :class:`~motiond.SensorUnavailable` (while the daemon is unreachable it waits)."""
        deliveries: "queue.Queue[Delivery]" = queue.Queue()
        observation = self._observation(self._call(self._async.observe, stream, deliveries.put, **params))
        try:
            while True:
                try:
                    message = delivered(deliveries.get(timeout=timeout))
                except queue.Empty:
                    return
                if message is not None:
                    yield message
        finally:
            observation.cancel()

    def _start(self, stream: str, handler: Optional[Handler], **params: Any) -> None:
        def keep(value: Optional[Message], error: Optional[MotionError]) -> None:
            if value is not None:
                with self._lock:
                    self._latest[stream] = value
            if handler is not None:
                handler(value, error)
        self._stop(stream)
        self._updates[stream] = self.observe(stream, keep, **params)

    def _stop(self, stream: str) -> None:
        observation = self._updates.pop(stream, None)
        if observation is not None:
            observation.cancel()

    def _latest_value(self, stream: str) -> Any:
        with self._lock:
            return self._latest.get(stream)

    # ---- Core Motion's updates ---------------------------------------------------------------------

    def start_accelerometer_updates(self, handler: Optional[Handler] = None, *, interval: float = 0.1,
                                    latency: float = 0) -> None:
        """Accelerometer values (G) every ``interval`` seconds; ``latency`` above 0 lets them
        come in batches (beyond Core Motion: Android's maximum report latency)."""
        self._start("accelerometer", handler, interval=interval, latency=latency)

    def stop_accelerometer_updates(self) -> None:
        """Ends the accelerometer updates."""
        self._stop("accelerometer")

    @property
    def is_accelerometer_active(self) -> bool:
        """Whether accelerometer updates are started."""
        return "accelerometer" in self._updates

    @property
    def accelerometer_data(self) -> Optional[AccelerometerData]:
        """The latest accelerometer value received (None before the first)."""
        return self._latest_value("accelerometer")

    def start_gyro_updates(self, handler: Optional[Handler] = None, *, interval: float = 0.1, latency: float = 0) -> None:
        """Raw gyroscope values (rad/s)."""
        self._start("gyro", handler, interval=interval, latency=latency)

    def stop_gyro_updates(self) -> None:
        """Ends the gyroscope updates."""
        self._stop("gyro")

    @property
    def is_gyro_active(self) -> bool:
        """Whether gyroscope updates are started."""
        return "gyro" in self._updates

    @property
    def gyro_data(self) -> Optional[GyroData]:
        """The latest gyroscope value received."""
        return self._latest_value("gyro")

    def start_magnetometer_updates(self, handler: Optional[Handler] = None, *, interval: float = 0.1,
                                   latency: float = 0) -> None:
        """Raw magnetometer values (µT); without a magnetometer the handler gets
        :class:`~motiond.SensorUnavailable`."""
        self._start("magnetometer", handler, interval=interval, latency=latency)

    def stop_magnetometer_updates(self) -> None:
        """Ends the magnetometer updates."""
        self._stop("magnetometer")

    @property
    def is_magnetometer_active(self) -> bool:
        """Whether magnetometer updates are started."""
        return "magnetometer" in self._updates

    @property
    def magnetometer_data(self) -> Optional[MagnetometerData]:
        """The latest magnetometer value received."""
        return self._latest_value("magnetometer")

    def start_device_motion_updates(self, handler: Optional[Handler] = None, *, frame: str = "xArbitraryZVertical",
                                    interval: float = 0.1, latency: float = 0) -> None:
        """Fused device motion in ``frame``; a frame the daemon cannot serve gives the handler
        :class:`~motiond.FrameUnavailable`."""
        self._start("deviceMotion", handler, frame=frame, interval=interval, latency=latency)

    def stop_device_motion_updates(self) -> None:
        """Ends the device-motion updates."""
        self._stop("deviceMotion")

    @property
    def is_device_motion_active(self) -> bool:
        """Whether device-motion updates are started."""
        return "deviceMotion" in self._updates

    @property
    def device_motion(self) -> Optional[DeviceMotion]:
        """The latest device motion received."""
        return self._latest_value("deviceMotion")

    def start_heading_updates(self, handler: Optional[Handler] = None, *, filter: float = 1,
                              orientation: str = "portrait", latency: float = 0) -> None:
        """Compass headings, each at least ``filter`` degrees from the last."""
        self._start("heading", handler, filter=filter, orientation=orientation, latency=latency)

    def stop_heading_updates(self) -> None:
        """Ends the heading updates."""
        self._stop("heading")

    @property
    def heading(self) -> Optional[Heading]:
        """The latest heading received."""
        return self._latest_value("heading")

    # ---- events -----------------------------------------------------------------------------------

    def observe_orientation(self, handler: Handler) -> Observation:
        """The device orientation now, then each change (``OrientationChange``)."""
        return self.observe("orientation", handler)

    def observe_tilt(self, handler: Handler) -> Observation:
        """The tilt now, then each change (``TiltChange``)."""
        return self.observe("tilt", handler)

    def observe_shake(self, handler: Handler) -> Observation:
        """Shake phases (``Shake``)."""
        return self.observe("shake", handler)

    def observe_gestures(self, handler: Handler) -> Observation:
        """Gestures (``Gesture``)."""
        return self.observe("gesture", handler)

    def observe_posture(self, handler: Handler) -> Observation:
        """A convertible's posture now, then each change (``PostureChange``)."""
        return self.observe("posture", handler)

    def observe_hinge(self, handler: Handler, *, interval: float = 0.1) -> Observation:
        """A convertible's hinge angle (``HingeAngle``, degrees) every ``interval`` seconds."""
        return self.observe("hinge", handler, interval=interval)

    def observe_light(self, handler: Handler, *, interval: float = 1) -> Observation:
        """The ambient light (``LightLevel``) every ``interval`` seconds."""
        return self.observe("light", handler, interval=interval)

    def observe_proximity(self, handler: Handler) -> Observation:
        """Proximity now, then each change (``ProximityChange``)."""
        return self.observe("proximity", handler)

    def observe_availability(self, handler: Handler) -> Observation:
        """Every sensor's ``Availability`` now, then each change."""
        return self.observe("availability", handler)

