"""How long to wait before the next attempt to reach the daemon."""

from __future__ import annotations


class Backoff:
    """Exponential back-off between reconnection attempts, as MotionClient's ``DaemonLink``
    in Swift: 0.05 s after the first failure, doubling up to 2 s, back to 0.05 s once a
    connection has been greeted (:meth:`reset`)."""

    FIRST = 0.05
    LAST = 2.0

    def __init__(self) -> None:
        self._next = self.FIRST

    def next_delay(self) -> float:
        """Seconds to wait now; the following wait is twice as long (at most :attr:`LAST`)."""
        delay = self._next
        self._next = min(self._next * 2, self.LAST)
        return delay

    def reset(self) -> None:
        """A connection succeeded: the next failure waits :attr:`FIRST` again."""
        self._next = self.FIRST
