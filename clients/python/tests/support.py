"""A real motiond for the tests: each test case starts its own on a private socket."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from typing import List, Optional

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
#: The daemon under test: $MOTIOND, else the debug build of this checkout.
MOTIOND = os.environ.get("MOTIOND") or os.path.join(ROOT, ".build", "debug", "motiond")


def still_trace(directory: str, seconds: float = 60) -> str:
    """A recorded device lying face up and still (a replay, so that a busy machine cannot make
    it move on as the simulation would), in motiond's trace format (m/s², rad/s, µT)."""
    rng = random.Random(7)
    rows = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"]
    for i in range(int(seconds * 100)):
        noise = [rng.uniform(-0.002, 0.002) for _ in range(3)] + [rng.uniform(-0.05, 0.05) for _ in range(3)]
        rows.append(f"{i / 100},{noise[0]},{noise[1]},{noise[2]},{noise[3]},{noise[4]},{9.81 + noise[5]},20,0,-44")
    path = os.path.join(directory, "still.csv")
    with open(path, "w") as trace:
        trace.write("\n".join(rows) + "\n")
    return path


def laptop_trace(directory: str, seconds: float = 60) -> str:
    """A convertible open at 90° on a desk: the display upright, the base flat (its
    accelerometer in the display's frame as the closed lid defines it)."""
    rows = ["t,acc_x,acc_y,acc_z,base_acc_x,base_acc_y,base_acc_z"]
    rows += [f"{i / 100},0,9.81,0,0,0,-9.81" for i in range(int(seconds * 100))]
    path = os.path.join(directory, "laptop.csv")
    with open(path, "w") as trace:
        trace.write("\n".join(rows) + "\n")
    return path


class Daemon:
    """``motiond --no-config --source SOURCE --socket DIR/SOCKET`` until :meth:`stop`."""

    def __init__(self, source: str, directory: str, extra: Optional[List[str]] = None,
                 socket: str = "motiond.sock") -> None:
        self.socket = os.path.join(directory, socket)
        self.log = open(os.path.join(directory, f"motiond-{time.monotonic_ns()}.log"), "w")
        self.process = subprocess.Popen([MOTIOND, "--no-config", "--source", source, "--socket", self.socket,
                                         "--log-target", "stderr", *(extra or [])],
                                        stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"motiond did not start: see {self.log.name}")
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stops the daemon (SIGTERM: it says goodbye) and waits for it to exit."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class DaemonTestCase(unittest.TestCase):
    """A test case with a temporary directory and helpers to start daemons in it."""

    def setUp(self) -> None:
        if not os.access(MOTIOND, os.X_OK):
            self.skipTest(f"no motiond at {MOTIOND} (build it, or set $MOTIOND)")
        self.directory = tempfile.mkdtemp(prefix="motiond-python-")
        self.addCleanup(shutil.rmtree, self.directory, True)

    def start(self, source: str = "sim:", extra: Optional[List[str]] = None, socket: str = "motiond.sock") -> Daemon:
        """A daemon on DIRECTORY/``socket`` (the same name again: a replacement at the same path)."""
        daemon = Daemon(source, self.directory, extra, socket)
        self.addCleanup(daemon.stop)
        return daemon

    def start_laptop(self) -> Daemon:
        """A daemon replaying a convertible open at 90° (posture ``laptop``)."""
        return self.start(f"replay:{laptop_trace(self.directory)}", socket="laptop.sock")

    def start_still(self, extra: Optional[List[str]] = None) -> Daemon:
        """A daemon replaying a device lying still, face up."""
        return self.start(f"replay:{still_trace(self.directory)}", extra)
