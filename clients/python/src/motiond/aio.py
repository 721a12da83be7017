"""The ``asyncio`` motion manager: subscriptions that survive a daemon restart."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Dict, List, Optional, Union

from .backoff import Backoff
from .errors import (DaemonError, DaemonUnreachable, Goodbye, MotionError, ProtocolMismatch, SensorUnavailable,
                     error_from_reply)
from .messages import (AccelerometerData, Availability, DeviceMotion, GoodbyeMessage, GyroData, Heading, HingeAngle,
                       Hello, LightLevel, MagnetometerData, Message, OrientationChange, PostureChange, ProximityChange,
                       PullResult, Reply, Shake, Gesture, TiltChange, parse_line)
from .streams import STREAM_SENSORS, missing_sensors
from .wire import MAXIMUM_LINE_LENGTH, PROTOCOL_VERSION, encode_request, resolve_socket

#: What a listener receives: a value of its stream, or an error about it.
Delivery = Union[Message, MotionError]

Listener = Callable[[Delivery], None]


def delivered(delivery: Delivery) -> Optional[Message]:
    """The message a delivery to an update stream carries; raises the error that ends the
    stream (the daemon's refusal, a missing sensor, a protocol mismatch); None for a notice
    that does neither (an outage while reconnecting)."""
    if isinstance(delivery, (DaemonError, SensorUnavailable, ProtocolMismatch)):
        raise delivery
    return delivery if isinstance(delivery, Message) else None


class Observation:
    """A registration made by ``observe``/``start`` calls; :meth:`cancel` ends it (and the
    daemon subscription, once nobody else uses the stream)."""

    def __init__(self, cancel: Callable[[], None]) -> None:
        self._cancel: Optional[Callable[[], None]] = cancel

    def cancel(self) -> None:
        """Stops the deliveries; calling it again does nothing."""
        cancel, self._cancel = self._cancel, None
        if cancel is not None:
            cancel()


@dataclass
class _Stream:
    params: Dict[str, Any]
    listeners: List[Listener] = field(default_factory=list)


class AsyncMotionManager:
    """motiond's streams for ``asyncio`` programs, as MotionClient's ``MotionManager`` in Swift.

    It connects when entered (``async with``) or :meth:`start`-ed, and whenever the connection
    is lost (the daemon stopped, restarted, said goodbye) it tries again with back-off (0.05 s
    doubling to 2 s) and subscribes again to every stream still observed. A connection holds
    one subscription per stream: observing a stream again with other parameters replaces them.

    >>> async with AsyncMotionManager() as motion:
    ...     async for value in motion.device_motion_updates(interval=0.02):
    ...         print(value.attitude.roll)

    The async iterators raise :class:`~motiond.DaemonError` (the daemon refused the
    subscription) and :class:`~motiond.SensorUnavailable` (a sensor the stream needs is absent);
    while the daemon is unreachable they wait for it.
    """

    def __init__(self, socket_path: Optional[str] = None, *, timeout: float = 5.0) -> None:
        #: The daemon's socket: ``socket_path``, else ``$MOTIOND_SOCKET``, else the default.
        self.path = resolve_socket(socket_path)
        #: Seconds a request waits for the connection and for its reply.
        self.timeout = timeout
        #: The current connection's hello (None while disconnected).
        self.hello: Optional[Hello] = None
        #: Each sensor's latest availability (from the hello, then ``availability`` messages).
        self.sensors: Dict[str, Dict[str, Any]] = {}
        self._streams: Dict[str, _Stream] = {}
        self._connection_listeners: List[Callable[[Optional[MotionError]], None]] = []
        self._waiting: Dict[int, "asyncio.Future[Reply]"] = {}
        self._subscribing: Dict[int, str] = {}
        self._writer: Optional[asyncio.StreamWriter] = None
        self._connected: Optional[asyncio.Event] = None
        self._task: Optional["asyncio.Task[None]"] = None
        self._next_id = 1
        self._last_error: MotionError = DaemonUnreachable(f"not connected to motiond at {self.path} yet")

    # ---- life cycle ------------------------------------------------------------------------

    async def __aenter__(self) -> "AsyncMotionManager":
        self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def start(self) -> None:
        """Starts connecting (and reconnecting) in the running event loop."""
        if self._task is None:
            self._connected = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        """Closes the connection and stops reconnecting."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    @property
    def is_connected(self) -> bool:
        """Whether a connection is up (greeted by the daemon)."""
        return self._connected is not None and self._connected.is_set()

    async def wait_connected(self, timeout: Optional[float] = None) -> Hello:
        """Waits until connected (at most ``timeout`` seconds, default :attr:`timeout`) and
        returns the hello; raises the last connection error otherwise."""
        self.start()
        assert self._connected is not None
        try:
            await asyncio.wait_for(self._connected.wait(), self.timeout if timeout is None else timeout)
        except asyncio.TimeoutError:
            raise self._last_error from None
        assert self.hello is not None
        return self.hello

    def observe_connection(self, listener: Callable[[Optional[MotionError]], None]) -> Observation:
        """Calls ``listener(None)`` on every connection and ``listener(error)`` on every loss."""
        self._connection_listeners.append(listener)
        return Observation(lambda: self._connection_listeners.remove(listener))

    async def _run(self) -> None:
        backoff = Backoff()
        while True:
            writer: Optional[asyncio.StreamWriter] = None
            try:
                reader, writer = await asyncio.open_unix_connection(self.path, limit=2 * MAXIMUM_LINE_LENGTH)
                hello = parse_line(await asyncio.wait_for(self._read(reader), self.timeout))
                if isinstance(hello, Reply) and not hello.ok:
                    raise error_from_reply({"error": hello.error}, "motiond refuses this connection")
                if not isinstance(hello, Hello):
                    raise ProtocolMismatch(f"expected a hello first, got {hello.line[:100]!r}")
                if hello.protocol != PROTOCOL_VERSION:
                    raise ProtocolMismatch(f"motiond speaks protocol {hello.protocol}, this client {PROTOCOL_VERSION}")
                backoff.reset()
                self.hello, self.sensors, self._writer = hello, dict(hello.sensors), writer
                assert self._connected is not None
                self._connected.set()
                for stream in self._streams:
                    self._subscribe(stream)
                for listener in list(self._connection_listeners):
                    listener(None)
                while True:
                    line = await self._read(reader)
                    try:
                        message = parse_line(line)
                    except ProtocolMismatch:
                        continue  # after the hello, one line this client cannot read is skipped
                    self._dispatch(message)
            except asyncio.CancelledError:
                self._disconnected(writer, DaemonUnreachable("the motion manager was closed"), notify=False)
                raise
            except MotionError as error:
                self._disconnected(writer, error)
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
                what = getattr(error, "strerror", None) or str(error) or type(error).__name__
                self._disconnected(writer, DaemonUnreachable(f"cannot reach motiond at {self.path}: {what}"))
            await asyncio.sleep(backoff.next_delay())

    @staticmethod
    async def _read(reader: asyncio.StreamReader) -> bytes:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as error:
            if error.partial:
                raise ProtocolMismatch("motiond closed the connection in the middle of a line") from None
            raise DaemonUnreachable("motiond closed the connection") from None
        except asyncio.LimitOverrunError:
            raise ProtocolMismatch(f"a line from motiond exceeds {MAXIMUM_LINE_LENGTH} bytes") from None
        return line

    def _disconnected(self, writer: Optional[asyncio.StreamWriter], error: MotionError, notify: bool = True) -> None:
        was_connected = self.is_connected
        if writer is not None:
            writer.close()
        self._writer, self.hello = None, None
        if self._connected is not None:
            self._connected.clear()
        self._last_error = error
        waiting, self._waiting = self._waiting, {}
        self._subscribing.clear()
        for future in waiting.values():
            if not future.done():
                future.set_exception(error)
        if not notify:
            return
        # One report per outage: a failed attempt while already down says nothing new.
        if was_connected or not isinstance(error, DaemonUnreachable) or isinstance(error, Goodbye):
            for listener in list(self._connection_listeners):
                listener(error)
            for stream in list(self._streams.values()):
                self._deliver(stream, error)

    # ---- dispatch ------------------------------------------------------------------------------

    @staticmethod
    def _deliver(stream: _Stream, delivery: Delivery) -> None:
        for listener in list(stream.listeners):
            listener(delivery)

    def _dispatch(self, message: Message) -> None:
        if isinstance(message, Reply):
            stream = self._subscribing.pop(message.id, None) if message.id is not None else None
            future = self._waiting.pop(message.id, None) if message.id is not None else None
            if future is not None and not future.done():
                future.set_result(message)
            if stream is not None and stream in self._streams:
                self._subscribed(stream, message)
            return
        if isinstance(message, GoodbyeMessage):
            raise Goodbye(message.reason)
        if isinstance(message, Availability):
            self.sensors[message.sensor] = {k: v for k, v in vars(message).items() if k != "sensor" and v is not None}
            if not message.available:
                for name, stream in list(self._streams.items()):
                    if message.sensor in STREAM_SENSORS[name]:
                        self._deliver(stream, SensorUnavailable(name, f"{message.sensor}: {message.reason}"))
        if message.kind in self._streams:
            self._deliver(self._streams[message.kind], message)

    def _subscribed(self, name: str, reply: Reply) -> None:
        stream = self._streams[name]
        if not reply.ok:
            self._deliver(stream, error_from_reply({"error": reply.error}, f"subscribe {name}"))
        elif reply.fields.get("available") is False:
            reasons = "; ".join(f"{s}: {self.sensors.get(s, {}).get('reason', 'absent')}"
                                for s in missing_sensors(name, self.sensors))
            self._deliver(stream, SensorUnavailable(name, reasons or "a sensor it needs is absent"))

    # ---- requests ------------------------------------------------------------------------------

    def _send(self, op: str, fields: Dict[str, Any]) -> "asyncio.Future[Reply]":
        assert self._writer is not None
        request_id, self._next_id = self._next_id, self._next_id + 1
        future: "asyncio.Future[Reply]" = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        if op == "subscribe":
            self._subscribing[request_id] = fields["stream"]
        self._writer.write(encode_request(op, request_id, fields))
        return future

    def _subscribe(self, stream: str) -> None:
        if self._writer is not None:
            future = self._send("subscribe", {"stream": stream, **self._streams[stream].params})
            future.add_done_callback(lambda f: f.exception())  # its reply goes to the listeners

    async def request(self, op: str, name: Optional[str] = None, **fields: Any) -> Reply:
        """Sends a request once connected and returns its successful reply; raises the daemon's
        error naming ``name`` (by default ``op``), or :class:`~motiond.DaemonUnreachable`."""
        await self.wait_connected()
        reply = await asyncio.wait_for(asyncio.shield(self._send(op, fields)), self.timeout)
        if not reply.ok:
            raise error_from_reply({"error": reply.error}, name or op)
        return reply

    async def get(self, stream: str, *, frame: Optional[str] = None, orientation: Optional[str] = None) -> PullResult:
        """The daemon's latest value of a stream and its age, in seconds (a pull: it starts no
        sensor, and the error ``noSample`` says when there is no value yet)."""
        return PullResult.from_reply(await self.request("get", f"get {stream}", stream=stream, frame=frame,
                                                        orientation=orientation))

    async def status(self) -> Dict[str, Any]:
        """The daemon's status object (docs/PROTOCOL.md §3.4)."""
        return (await self.request("status")).fields.get("status", {})

    def is_available(self, stream: str) -> bool:
        """Whether every sensor the stream needs is present now (False while disconnected)."""
        return self.is_connected and all(self.sensors.get(s, {}).get("available") for s in STREAM_SENSORS[stream])

    # ---- observing -----------------------------------------------------------------------------

    def observe(self, stream: str, listener: Listener, **params: Any) -> Observation:
        """Calls ``listener`` with each value of ``stream`` (its typed message) and with each
        error about it; the subscription's parameters (``interval``, ``latency``, ``frame``,
        ``filter``, ``orientation``, ``detectors``) replace earlier ones. Call in the loop's thread."""
        if stream not in STREAM_SENSORS:
            raise ValueError(f"stream {stream!r}: expected one of {', '.join(STREAM_SENSORS)}")
        params = {k: v for k, v in params.items() if v is not None and not (k == "latency" and v == 0)}
        entry = self._streams.get(stream)
        if entry is None:
            entry = self._streams[stream] = _Stream(params)
            self._subscribe(stream)
        elif params != entry.params:
            entry.params = params
            self._subscribe(stream)
        entry.listeners.append(listener)

        def cancel() -> None:
            entry.listeners.remove(listener)
            if not entry.listeners and self._streams.get(stream) is entry:
                del self._streams[stream]
                if self._writer is not None:
                    self._send("unsubscribe", {"stream": stream}).add_done_callback(lambda f: f.exception())

        return Observation(cancel)

    async def updates(self, stream: str, **params: Any) -> AsyncIterator[Message]:
        """The values of ``stream`` as they come (see :meth:`observe` for ``params``)."""
        queue: "asyncio.Queue[Delivery]" = asyncio.Queue()
        self.start()
        observation = self.observe(stream, queue.put_nowait, **params)
        try:
            while True:
                message = delivered(await queue.get())
                if message is not None:
                    yield message
        finally:
            observation.cancel()

    def accelerometer_updates(self, interval: float = 0.1, latency: float = 0) -> AsyncIterator[AccelerometerData]:
        """Accelerometer values (G) every ``interval`` seconds, in batches of ``latency`` seconds."""
        return self.updates("accelerometer", interval=interval, latency=latency)  # type: ignore[return-value]

    def gyro_updates(self, interval: float = 0.1, latency: float = 0) -> AsyncIterator[GyroData]:
        """Raw gyroscope values (rad/s)."""
        return self.updates("gyro", interval=interval, latency=latency)  # type: ignore[return-value]

    def magnetometer_updates(self, interval: float = 0.1, latency: float = 0) -> AsyncIterator[MagnetometerData]:
        """Raw magnetometer values (µT)."""
        return self.updates("magnetometer", interval=interval, latency=latency)  # type: ignore[return-value]

    def device_motion_updates(self, frame: str = "xArbitraryZVertical", interval: float = 0.1,
                              latency: float = 0) -> AsyncIterator[DeviceMotion]:
        """Fused device motion in a reference frame (``xArbitraryZVertical``, …)."""
        return self.updates("deviceMotion", frame=frame, interval=interval, latency=latency)  # type: ignore[return-value]

    def heading_updates(self, filter: float = 1, orientation: str = "portrait", latency: float = 0) -> AsyncIterator[Heading]:
        """Compass headings, each at least ``filter`` degrees from the last."""
        return self.updates("heading", filter=filter, orientation=orientation, latency=latency)  # type: ignore[return-value]

    def orientations(self) -> AsyncIterator[OrientationChange]:
        """The device orientation: the current one, then each change."""
        return self.updates("orientation")  # type: ignore[return-value]

    def tilts(self) -> AsyncIterator[TiltChange]:
        """How far the screen faces up or down: the current tilt, then each change."""
        return self.updates("tilt")  # type: ignore[return-value]

    def shakes(self) -> AsyncIterator[Shake]:
        """Shake phases (``began``, then ``ended`` or ``cancelled``)."""
        return self.updates("shake")  # type: ignore[return-value]

    def gestures(self) -> AsyncIterator[Gesture]:
        """Gestures (``tap``, ``doubleTap``, ``slapLeft``, …)."""
        return self.updates("gesture")  # type: ignore[return-value]

    def postures(self) -> AsyncIterator[PostureChange]:
        """A convertible's posture: the current one, then each change."""
        return self.updates("posture")  # type: ignore[return-value]

    def hinge_angles(self, interval: float = 0.1) -> AsyncIterator[HingeAngle]:
        """A convertible's hinge angle (degrees) every ``interval`` seconds."""
        return self.updates("hinge", interval=interval)  # type: ignore[return-value]

    def light_levels(self, interval: float = 1) -> AsyncIterator[LightLevel]:
        """The ambient light (lux) every ``interval`` seconds (at least 0.1)."""
        return self.updates("light", interval=interval)  # type: ignore[return-value]

    def proximity_states(self) -> AsyncIterator[ProximityChange]:
        """Whether something is near the proximity sensor: now, then each change."""
        return self.updates("proximity")  # type: ignore[return-value]

    def availability_changes(self) -> AsyncIterator[Availability]:
        """Every sensor's availability now, then each change."""
        return self.updates("availability")  # type: ignore[return-value]

