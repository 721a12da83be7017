"""Errors of the motiond client, each naming what went wrong (the daemon's own code and message
when it refused a request), as ``MotionClientError`` does in Swift."""

from __future__ import annotations

from typing import Optional


class MotionError(Exception):
    """Base class of every error this package raises. ``exit_status`` is the status motionctl
    exits with for it (sysexits), for command-line tools: ``sys.exit(error.exit_status)``."""

    exit_status = 1


class DaemonUnreachable(MotionError):
    """motiond cannot be reached: not running, socket missing, connection lost, no answer in
    time. A :class:`~motiond.MotionManager` keeps trying and restores its subscriptions."""

    exit_status = 69  # EX_UNAVAILABLE


class Goodbye(DaemonUnreachable):
    """motiond ended the connection in order (``goodbye``: it stops or restarts, or asked its
    clients to reconnect); ``reason`` is the daemon's."""

    exit_status = 75  # EX_TEMPFAIL: try again later

    def __init__(self, reason: str) -> None:
        super().__init__(f"motiond said goodbye: {reason}")
        self.reason = reason


class ProtocolMismatch(MotionError):
    """motiond speaks another protocol version, or sent something that is not the protocol."""

    exit_status = 76  # EX_PROTOCOL


class SensorUnavailable(MotionError):
    """A sensor the stream needs is absent now (the subscription is kept: its values start if
    the sensor appears)."""

    def __init__(self, stream: str, reason: str) -> None:
        super().__init__(f"{stream} unavailable: {reason}")
        self.stream = stream
        self.reason = reason


class DaemonError(MotionError):
    """motiond refused a request: ``code`` and ``message`` are its reply's ``error``
    (docs/PROTOCOL.md §7); ``request`` says which request (``subscribe deviceMotion``)."""

    def __init__(self, code: str, message: str, request: Optional[str] = None) -> None:
        where = f"{request}: " if request else ""
        super().__init__(f"{where}{message} ({code})")
        self.code = code
        self.message = message
        self.request = request


class AccessDenied(DaemonError):
    """motiond's access policy does not give this process the stream, or any stream."""

    exit_status = 77  # EX_NOPERM


class FrameUnavailable(DaemonError):
    """The reference frame cannot be served now (no magnetometer, no declination for true north)."""


def error_from_reply(reply: dict, request: Optional[str] = None) -> DaemonError:
    """The error of a failed reply, typed by its code; an unknown code is a plain DaemonError."""
    error = reply.get("error") or {}
    code = str(error.get("code", "internalError"))
    message = str(error.get("message", ""))
    kind = {"accessDenied": AccessDenied, "frameUnavailable": FrameUnavailable}.get(code, DaemonError)
    return kind(code, message, request)
