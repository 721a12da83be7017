#!/usr/bin/env python3
"""motiond at rest and under load: CPU, wake-ups, memory, latency (issue 14, "Frugal at rest").

A developer benchmark (Benchmarks/README.md). Python 3 standard library only; the system tools
it drives come from Debian (scripts/install-deps.sh bench).
"""

import argparse
import json
import math
import os
import random
import selectors
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MOTIOND = os.path.join(REPO, ".build", "release", "motiond")
IIO_SENSOR_PROXY = "/usr/sbin/iio-sensor-proxy"


def unit_environment():
    """The Environment= settings of systemd/motiond.service: motiond is measured as its unit
    starts it (the peer as Debian's unit starts it, which sets none)."""
    settings = {}
    with open(os.path.join(REPO, "systemd", "motiond.service")) as unit:
        for line in unit:
            if line.startswith("Environment="):
                name, value = line[len("Environment="):].strip().split("=", 1)
                settings[name] = value
    return settings


MOTIOND_ENV = unit_environment()
SCENARIOS = ["desktop-rest", "desktop-moving", "desktop-dbus", "convertible-rest", "no-client", "devicemotion-1",
             "devicemotion-10", "devicemotion-100", "batching"]
ATTR_DIR = "sys/devices/platform/test-accel/iio:device0"

DESCRIPTION = """\
Runs motiond (and, for the desktop scenarios, iio-sensor-proxy beside it) in scenarios and
prints, for the daemon process only (never its clients, never umockdev-run):

  CPU %        share of ONE core: the sum over /proc/PID/task/*/schedstat field 1 (ns on CPU)
               over all threads, difference across the window, divided by the window.
  wake-ups/s   voluntary context switches per second: the sum of voluntary_ctxt_switches
               over /proc/PID/task/*/status (sampled every 0.1 s, so threads that end within
               the window count too), difference across the window (each is a thread that
               slept and was woken). Preemptions (nonvoluntary_ctxt_switches) are no wake-ups:
               the thread was running; they are left out (before 2026-12-02 they counted).
  RSS          VmRSS of the daemon at the end of the window, MiB.
  USS          its private dirty memory at the end of the window (Private_Dirty of
               /proc/PID/smaps_rollup), MiB: what it really spends. RSS also counts clean
               file-backed pages (code, read-only data), which are shared with the page cache
               and reclaimable.
  latency      desktop-rest: time from rewriting the emulated accelerometer's raw attributes
               (portrait <-> landscape) to the client receiving the new orientation; median
               and max over all steps of all runs. The steps come after the rest window, so
               the rest figures contain no steps.
  lines/s      devicemotion-N, batching: deviceMotion lines received per client per second
               (100 expected at interval 0.01).
  wake/10ms    devicemotion-N: wake-ups per 10 ms sample period (wake-ups/s / 100).
  batch gap    batching: median time between bursts of lines (a burst starts after >= 100 ms
               of silence); ~1 s when the daemon honours "latency":1.0.

Each scenario starts its daemon on a fresh setup, waits for it to serve the client(s), lets it
settle for --settle seconds, then measures for --window seconds. With --runs N every scenario
runs N times and the median of each metric is reported. The table at the end is markdown, for
docs/PERFORMANCE.md.

Scenarios:
  desktop-rest      emulated polled accelerometer (umockdev), one orientation client, device
                    still. motiond, then iio-sensor-proxy (one after the other, each on its own
                    fresh testbed, never both at once); then --steps orientation steps each.
  desktop-dbus      as desktop-rest, but both daemons serve net.hadess.SensorProxy on a private
                    system bus and the client is monitor-sensor for both: motiond --sensor-proxy,
                    then iio-sensor-proxy; rest figures, then --steps steps each.
  desktop-moving    the same, the device wobbling a few degrees with a few LSB of noise,
                    raw values rewritten every 20-50 ms (motiond, then iio-sensor-proxy).
  convertible-rest  as desktop-rest on a convertible open at 90 degrees (a second accelerometer,
                    in its base), motiond's client following the posture as well, as the
                    desktop's tablet-mode switch does: both accelerometers at rest. Beside it
                    iio-sensor-proxy, which reads the display's accelerometer only. No steps.
  no-client         as desktop-rest, but the client leaves once it has its first orientation
                    (monitor-sensor for iio-sensor-proxy, releasing its claim); measured from
                    --settle seconds after it left: what a daemon costs with nobody to serve.
  devicemotion-N    motiond --source sim: (simulated IMU), N = 1, 10, 100 clients subscribed to
                    deviceMotion at interval 0.01, all held by one separate Python process that
                    only counts newlines.
  batching          one deviceMotion client at interval 0.01 with "latency":1.0 (batched
                    delivery); reported as not supported when the daemon refuses the option.

Timings on a shared or busy machine are noisy: compare figures taken in the same conditions.
"""


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Process bookkeeping: everything started is torn down at the end, also on Ctrl-C.

class Cleanup:
    def __init__(self):
        self.procs = []     # Popen objects, each leading its own session (process group)
        self.pids = []      # pids of daemons that forked away from us (dbus-daemon --fork)
        self.dirs = []

    def popen(self, args, **kw):
        kw.setdefault("start_new_session", True)
        p = subprocess.Popen(args, **kw)
        self.procs.append(p)
        return p

    def stop(self, p, timeout=3.0):
        """SIGTERM the process group p leads, then SIGKILL after timeout."""
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                try:
                    p.wait(timeout)
                except subprocess.TimeoutExpired:
                    pass
        else:
            # The leader is gone; anything left in its group goes too.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for stream in (p.stdin, p.stdout, p.stderr):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        if p in self.procs:
            self.procs.remove(p)

    def kill_pid(self, pid):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                if not os.path.exists(f"/proc/{pid}") or proc_state(pid) == "Z":
                    return
                time.sleep(0.05)

    def tempdir(self, prefix):
        d = tempfile.mkdtemp(prefix=prefix)
        self.dirs.append(d)
        return d

    def all(self):
        for p in list(reversed(self.procs)):
            self.stop(p)
        for pid in list(reversed(self.pids)):
            self.kill_pid(pid)
        self.pids.clear()
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)
        self.dirs.clear()


CLEAN = Cleanup()


def proc_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def children_of(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                rest = f.read().rsplit(")", 1)[1].split()
            if int(rest[1]) == pid:
                out.append(int(entry))
        except (OSError, IndexError, ValueError):
            pass
    return out


def find_descendant(root, name, timeout):
    """The pid of the process named `name` (comm, as truncated by the kernel) under `root`."""
    comm = os.path.basename(name)[:15]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        todo = [root]
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if pid != root and f.read().strip() == comm:
                        return pid
            except OSError:
                pass
            todo.extend(children_of(pid))
        time.sleep(0.05)
    raise BenchError(f"no {name} process appeared under pid {root} within {timeout} s")


# ---------------------------------------------------------------------------------------------
# Measuring a process.

def snapshot(pid):
    """(monotonic s, {tid: (ns on CPU, context switches)}, VmRSS KiB)."""
    t = time.monotonic()
    threads = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        raise BenchError(f"process {pid} is gone")
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                cpu = int(f.read().split()[0])
            switches = 0
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        switches += int(line.split()[1])
            threads[tid] = (cpu, switches)
        except (OSError, ValueError, IndexError):
            pass   # a thread that ended meanwhile
    rss = None
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    if rss is None:
        raise BenchError(f"process {pid} has no VmRSS (a zombie?)")
    return t, threads, rss


def measure(pid, window, alive=()):
    """CPU %, wake-ups/s and RSS (MiB) of pid over `window` seconds.

    Threads are sampled every 0.1 s and each keeps its latest figures, so a thread that ends
    within the window (an idle Dispatch worker retiring) still counts for what it did until
    then, and one born within it from zero."""
    t0, first, _ = snapshot(pid)
    latest = dict(first)
    deadline = t0 + window
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(left, 0.1))
        latest.update(snapshot(pid)[1])
        for p, what in alive:
            if p.poll() is not None:
                raise BenchError(f"{what} exited (status {p.returncode}) during the window")
    t1, last, rss = snapshot(pid)
    latest.update(last)
    dt = t1 - t0
    cpu = sum(v[0] - first.get(tid, (0, 0))[0] for tid, v in latest.items())
    switches = sum(v[1] - first.get(tid, (0, 0))[1] for tid, v in latest.items())
    return {"cpu": cpu / (dt * 1e9) * 100.0, "wakeups": switches / dt,
            "rss": rss / 1024.0, "uss": private_dirty(pid) / 1024.0, "seconds": dt}


def private_dirty(pid):
    """Private_Dirty of pid's mappings, KiB (smaps_rollup: one line for all of them)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Private_Dirty:"):
                    return int(line.split()[1])
    except OSError as error:
        raise BenchError(f"cannot read /proc/{pid}/smaps_rollup: {error}")
    raise BenchError(f"/proc/{pid}/smaps_rollup has no Private_Dirty line")


# ---------------------------------------------------------------------------------------------
# Emulated accelerometer.

SCALE = 0.038307          # m/s² per LSB: 256 LSB ≈ 9.81 m/s² (1 g)
PORTRAIT = (0, -256, 0)   # iio-sensor-proxy "normal", motiond portrait
LANDSCAPE = (256, 0, 0)   # iio-sensor-proxy "left-up", motiond landscape (Left or Right)

# The emulated device: the tests' fixture (Tests/Fixtures/test-accel.umockdev), lying portrait.
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Fixtures", "test-accel.umockdev")


# A convertible's second accelerometer, in its base (udev's ACCEL_LOCATION, as the hwdb gives
# it), lying on the table: with the display upright (the fixture) the hinge is open at 90°. A
# platform device reports the specific force like a MEMS chip (docs/SENSORS.md): the base,
# whose frame is the display's when the lid is shut, reads z = -1 G lying open on a table (as
# Tests/Fixtures/convertible.umockdev; +256 read as a stand since 0.19).
BASE_ACCELEROMETER = """
P: /devices/platform/test-accel-base/iio:device1
N: iio:device1
E: DEVNAME=/dev/iio:device1
E: SUBSYSTEM=iio
E: MAJOR=237
E: MINOR=1
E: IIO_SENSOR_PROXY_TYPE=iio-poll-accel
E: ACCEL_LOCATION=base
A: dev=237:1\\n
A: name=test-accel\\n
A: in_accel_x_raw=0\\n
A: in_accel_y_raw=0\\n
A: in_accel_z_raw=-256\\n
A: in_accel_scale=0.038307\\n
"""


class Testbed:
    """A umockdev-run with the accelerometer (and a base accelerometer if `convertible`),
    running `command` (exec'd from a shell that first writes $UMOCKDEV_DIR into a file)."""

    def __init__(self, work, command, env, convertible=False, stdout=None, timeout=15):
        self.work = work
        desc = os.path.join(work, "accel.umockdev")
        shutil.copyfile(FIXTURE, desc)
        if convertible:
            with open(desc, "a") as f:
                f.write(BASE_ACCELEROMETER)
        dirfile = os.path.join(work, "umockdev-dir")
        self.log = open(os.path.join(work, "daemon.log"), "w")
        quoted = " ".join(shlex.quote(a) for a in command)
        script = f'echo "$UMOCKDEV_DIR" > {shlex.quote(dirfile)}; exec {quoted}'
        self.proc = CLEAN.popen(["umockdev-run", "-d", desc, "--", "sh", "-c", script],
                                env=env, stdin=subprocess.DEVNULL,
                                stdout=stdout or self.log, stderr=self.log)
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"umockdev-run exited ({self.proc.returncode}): {self.log_text()}")
            try:
                with open(dirfile) as f:
                    text = f.read().strip()
            except OSError:
                text = ""
            if text:
                break
            time.sleep(0.05)
        if not text:
            raise BenchError(f"umockdev-run did not start within {timeout} s")
        self.attrs = os.path.join(text, ATTR_DIR)
        if not os.path.isdir(self.attrs):
            raise BenchError(f"no emulated device at {self.attrs}")
        self.pid = find_descendant(self.proc.pid, command[0], timeout)

    def log_text(self):
        self.log.flush()
        try:
            with open(self.log.name) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def write(self, xyz):
        """Rewrites the raw attributes, each atomically (temporary file + rename)."""
        for axis, value in zip("xyz", xyz):
            name = f"in_accel_{axis}_raw"
            tmp = os.path.join(self.attrs, f".{name}.tmp")
            with open(tmp, "w") as f:
                f.write(f"{int(round(value))}\n")   # libiio wants the newline
            os.rename(tmp, os.path.join(self.attrs, name))

    def close(self):
        CLEAN.stop(self.proc)
        self.log.close()


class LineReader:
    """Reads a child's stdout in a thread, timestamping each line on arrival."""

    def __init__(self, stream):
        self.lines = []         # (monotonic, text)
        self.cond = threading.Condition()
        self.eof = False
        self.thread = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self.thread.start()

    def _run(self, stream):
        for raw in iter(stream.readline, b""):
            t = time.monotonic()
            with self.cond:
                self.lines.append((t, raw.decode("utf-8", "replace").rstrip("\n")))
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def wait_for(self, predicate, start, timeout):
        """The first (index, time, text) at or after index `start` matching; None on timeout."""
        deadline = time.monotonic() + timeout
        with self.cond:
            i = start
            while True:
                while i < len(self.lines):
                    t, text = self.lines[i]
                    if predicate(text):
                        return i, t, text
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.eof:
                    return None
                self.cond.wait(left)

    def count(self):
        with self.cond:
            return len(self.lines)


# --- the two daemons under the same testbed ----------------------------------------------------

def motiond_config(args, work):
    """motiond's configuration options: none (built-in defaults), or with --rest-interval a file
    in the scenario's work directory that sets only that."""
    if args.rest_interval is None:
        return ["--no-config"]
    path = os.path.join(work, "motiond.toml")
    with open(path, "w") as f:
        f.write(f"rest-interval = {args.rest_interval}\n")
    return ["--config", path]


class MotiondDesktop:
    name = "motiond"

    def __init__(self, args, work, convertible=False):
        self.sock = os.path.join(work, "motiond.sock")
        cmd = [args.motiond, "--source", "local:", "--socket", self.sock, *motiond_config(args, work),
               "--log-level", "notice", "--log-target", "stderr"]
        self.bed = Testbed(work, cmd, {**os.environ, **MOTIOND_ENV}, convertible)
        wait_for_socket(self.sock, self.bed.proc, args.timeout, self.bed.log_text)
        self.client = CLEAN.popen([sys.executable, os.path.abspath(__file__), "_orientation-client",
                                   self.sock] + (["posture"] if convertible else []),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        self.reader = LineReader(self.client.stdout)
        if self.reader.wait_for(lambda s: s.startswith("orientation "), 0, args.timeout) is None:
            raise BenchError(f"the motiond orientation client got no orientation within {args.timeout} s; "
                             f"client said: {self.reader.lines[-3:]}; motiond log: {self.bed.log_text()}")
        if convertible and self.reader.wait_for(lambda s: s == "posture laptop", 0, args.timeout) is None:
            raise BenchError(f"the motiond client got no laptop posture within {args.timeout} s; "
                             f"client said: {self.reader.lines[-3:]}; motiond log: {self.bed.log_text()}")
        self.alive = [(self.bed.proc, "motiond"), (self.client, "the orientation client")]

    @staticmethod
    def matches(text, landscape):
        words = text.split()
        if len(words) != 3 or words[0] != "orientation":
            return False
        return words[1].startswith("landscape") if landscape else words[1] == "portrait"

    @staticmethod
    def received(_arrived, text):
        return float(text.split()[2])   # the client's own receive time (CLOCK_MONOTONIC)

    def close(self):
        CLEAN.stop(self.client)
        self.bed.close()


class PrivateBus:
    """A private dbus-daemon of the system type; DBUS_SYSTEM_BUS_ADDRESS in `env` points at it."""

    def __init__(self, args, work):
        self.pid = None
        conf = os.path.join(work, "bus.conf")
        sock = os.path.join(work, "system_bus_socket")
        with open(conf, "w") as f:
            f.write(f"""<busconfig><type>system</type><listen>unix:path={sock}</listen>
<auth>EXTERNAL</auth><policy context="default"><allow user="*"/><allow own="*"/>
<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
<allow receive_sender="*"/></policy></busconfig>\n""")
        out = run_capture(["dbus-daemon", f"--config-file={conf}", "--print-address=1",
                           "--print-pid=1", "--fork"], args.timeout)
        lines = out.split()
        try:
            self.pid = int(lines[-1])
        except (IndexError, ValueError):
            raise BenchError(f"dbus-daemon did not print its pid: {out!r}")
        CLEAN.pids.append(self.pid)
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={sock}")
        self.env.pop("DBUS_SESSION_BUS_ADDRESS", None)

    def close(self):
        if self.pid:
            CLEAN.kill_pid(self.pid)
            if self.pid in CLEAN.pids:
                CLEAN.pids.remove(self.pid)


class SensorProxyClient:
    """A daemon serving net.hadess.SensorProxy on a private bus, watched by monitor-sensor
    (Debian's 3.0 takes no options: it claims every sensor the daemon has, here the
    accelerometer alone)."""

    def __init__(self, args, work, command, convertible=False, daemon_env=None):
        self.bus = PrivateBus(args, work)
        self.bed = Testbed(work, command, {**self.bus.env, **(daemon_env or {})}, convertible)
        # stdbuf: line-buffered through the pipe.
        self.client = CLEAN.popen(["stdbuf", "-oL", "monitor-sensor"], env=self.bus.env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.reader = LineReader(self.client.stdout)
        if self.reader.wait_for(lambda s: "Has accelerometer" in s, 0, args.timeout) is None:
            raise BenchError(f"monitor-sensor saw no accelerometer from {self.name} within {args.timeout} s: "
                             f"{[l for _, l in self.reader.lines[-5:]]}; daemon log: {self.bed.log_text()}")
        # Claim → first value: monitor-sensor says the daemon appeared, claims the accelerometer
        # (then the other sensors) and prints the first defined orientation either in its "Has"
        # line (the claim's reply waited for it) or as a change (the value came after the reply).
        appeared = self.reader.wait_for(lambda s: "appeared" in s and "+++ " in s, 0, args.timeout)
        defined = self.reader.wait_for(self.defined_orientation, 0, args.timeout)
        self.claim_latency = defined[1] - appeared[1] if appeared and defined else None
        self.alive = [(self.bed.proc, self.name), (self.client, "monitor-sensor")]

    @staticmethod
    def defined_orientation(text):
        return ("orientation changed: " in text or "Has accelerometer (orientation: " in text) and "undefined" not in text

    @staticmethod
    def matches(text, landscape):
        return f"orientation changed: {'left-up' if landscape else 'normal'}" in text

    @staticmethod
    def received(arrived, _text):
        return arrived   # when this process read the line from monitor-sensor's pipe

    def close(self):
        CLEAN.stop(self.client)
        self.bed.close()
        self.bus.close()


class ProxyDesktop(SensorProxyClient):
    name = "iio-sensor-proxy"

    def __init__(self, args, work, convertible=False):
        super().__init__(args, work, [IIO_SENSOR_PROXY], convertible)


class MotiondDBusDesktop(SensorProxyClient):
    """motiond serving iio-sensor-proxy's API (--sensor-proxy) to the same client."""
    name = "motiond (D-Bus)"

    def __init__(self, args, work):
        super().__init__(args, work, [args.motiond, "--source", "local:", "--no-socket", "--sensor-proxy",
                                      *motiond_config(args, work), "--log-level", "notice", "--log-target", "stderr"],
                         daemon_env=MOTIOND_ENV)


def run_capture(cmd, timeout):
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{cmd[0]} did not finish within {timeout} s")
    if r.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def wait_for_socket(path, proc, timeout, log=lambda: ""):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchError(f"motiond exited ({proc.returncode}) before serving: {log()}")
        if os.path.exists(path):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                return
            except OSError:
                pass
            finally:
                s.close()
        time.sleep(0.05)
    raise BenchError(f"motiond did not serve {path} within {timeout} s: {log()}")


def steps(daemon, n, timeout, rng):
    """n portrait <-> landscape steps at random times 1.5-2.5 s apart; latencies in seconds."""
    latencies = []
    landscape = False
    for _ in range(n):
        time.sleep(rng.uniform(1.5, 2.5))
        landscape = not landscape
        if daemon.client.poll() is not None:
            raise BenchError(f"the {daemon.name} client exited")
        start = daemon.reader.count()
        t0 = time.monotonic()
        daemon.bed.write(LANDSCAPE if landscape else PORTRAIT)
        hit = daemon.reader.wait_for(lambda s: daemon.matches(s, landscape), start, timeout)
        if hit is None:
            raise BenchError(f"{daemon.name}: no {'landscape' if landscape else 'portrait'} "
                             f"orientation within {timeout} s of the step")
        latencies.append(daemon.received(hit[1], hit[2]) - t0)
    return latencies


class Mover(threading.Thread):
    """Rewrites the raw values every 20-50 ms: a slow 3° wobble plus a few LSB of noise."""

    def __init__(self, bed, rng):
        super().__init__(daemon=True)
        self.bed, self.rng = bed, rng
        self.stop_event = threading.Event()
        self.error = None
        self.writes = 0

    def run(self):
        t0 = time.monotonic()
        try:
            while not self.stop_event.is_set():
                t = time.monotonic() - t0
                angle = math.radians(3.0) * math.sin(2 * math.pi * t / 4.0)
                tilt = math.radians(2.0) * math.sin(2 * math.pi * t / 7.0)
                g = 256.0
                xyz = (g * math.sin(angle) + self.rng.gauss(0, 2),
                       -g * math.cos(angle) * math.cos(tilt) + self.rng.gauss(0, 2),
                       g * math.sin(tilt) + self.rng.gauss(0, 2))
                self.bed.write(xyz)
                self.writes += 1
                self.stop_event.wait(self.rng.uniform(0.020, 0.050))
        except Exception as e:   # reported by the scenario
            self.error = e

    def stop(self):
        self.stop_event.set()
        self.join(5)


def desktop(args, kind, daemon_class, moving, rng):
    slug = "".join(c if c.isalnum() else "-" for c in daemon_class.name)   # a bus address takes no spaces
    work = CLEAN.tempdir(f"bench-power-{slug}-")
    daemon = None
    mover = None
    try:
        daemon = daemon_class(args, work, convertible=True) if kind == "convertible-rest" else daemon_class(args, work)
        alive = daemon.alive
        if kind == "no-client":
            CLEAN.stop(daemon.client)
            alive = daemon.alive[:1]   # the daemon alone
        if moving:
            mover = Mover(daemon.bed, rng)
            mover.start()
        time.sleep(args.settle)
        row = measure(daemon.bed.pid, args.window, alive)
        if mover:
            if mover.error:
                raise BenchError(f"moving the device failed: {mover.error}")
            mover.stop()
            mover = None
        if getattr(daemon, "claim_latency", None) is not None:
            row["claim"] = daemon.claim_latency
        if kind in ("desktop-rest", "desktop-dbus") and args.steps > 0:
            row["latencies"] = steps(daemon, args.steps, args.timeout, rng)
        return row
    finally:
        if mover:
            mover.stop()
        if daemon:
            daemon.close()
        # after a failed start, whatever was started is in CLEAN and goes at the end
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Simulated IMU with many clients.

def simulated(args, clients, latency, rng):
    work = CLEAN.tempdir("bench-power-sim-")
    sock = os.path.join(work, "motiond.sock")
    log = open(os.path.join(work, "motiond.log"), "w")

    def log_text():
        log.flush()
        with open(log.name) as f:
            return f.read()[-2000:]
    daemon = CLEAN.popen([args.motiond, "--source", "sim:", "--socket", sock, "--no-config",
                          "--log-level", "notice", "--log-target", "stderr"],
                         env={**os.environ, **MOTIOND_ENV}, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    counter = None
    try:
        wait_for_socket(sock, daemon, args.timeout, log_text)
        cmd = [sys.executable, os.path.abspath(__file__), "_counter-client", sock, str(clients)]
        if latency is not None:
            cmd.append(str(latency))
        counter = CLEAN.popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        reader = LineReader(counter.stdout)
        hit = reader.wait_for(lambda s: s.startswith(("ready", "refused", "error")), 0, args.timeout)
        if hit is None:
            raise BenchError(f"the clients did not subscribe within {args.timeout} s: {log_text()}")
        if hit[2].startswith("error"):
            raise BenchError(f"client: {hit[2]}")
        if hit[2].startswith("refused"):
            return {"unsupported": hit[2][len("refused "):]}
        replied = json.loads(hit[2][len("ready "):])
        time.sleep(args.settle)

        def mark():
            start = reader.count()
            counter.stdin.write(b"mark\n")
            counter.stdin.flush()
            got = reader.wait_for(lambda s: s.startswith(("mark", "error")), start, args.timeout)
            if got is None or got[2].startswith("error"):
                raise BenchError(f"the counting client did not answer: {got}")
            return json.loads(got[2][5:])
        m0 = mark()
        row = measure(daemon.pid, args.window, [(daemon, "motiond"), (counter, "the counting client")])
        m1 = mark()
        dt = m1["t"] - m0["t"]
        per_client = [(b - a) / dt for a, b in zip(m0["counts"], m1["counts"])]
        row["lines"] = statistics.mean(per_client)
        row["lines_min"] = min(per_client)
        row["wake10ms"] = row["wakeups"] / 100.0
        if latency is not None:
            bursts = m1["bursts"]
            gaps = [b - a for a, b in zip(bursts, bursts[1:]) if a >= m0["t"]]
            row["batch"] = statistics.median(gaps) if gaps else None
            row["reply_latency"] = replied.get("latency")
        return row
    finally:
        if counter:
            CLEAN.stop(counter)
        CLEAN.stop(daemon)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Client processes (run as `bench_power.py _orientation-client …`: their own processes, so
# their cost is never counted as motiond's).

def read_json_line(sock, buf, timeout):
    deadline = time.monotonic() + timeout
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BenchError("timed out waiting for a line from motiond")
        sock.settimeout(left)
        data = sock.recv(65536)
        if not data:
            raise BenchError("motiond closed the connection")
        buf += data
    line, _, rest = buf.partition(b"\n")
    return json.loads(line), rest


def connect(path):
    """A connection to motiond whose hello has been read: (socket, what followed it)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    hello, buf = read_json_line(s, b"", 10)
    if hello.get("type") != "hello":
        raise BenchError(f"expected hello, got {hello}")
    return s, buf


def orientation_client(path, posture=False):
    """Prints `orientation NAME MONOTONIC` for every orientation message (and `posture NAME`
    for every posture, when asked), flushed at once."""
    s, buf = connect(path)
    s.sendall(b'{"op":"subscribe","id":1,"stream":"orientation"}\n')
    if posture:
        s.sendall(b'{"op":"subscribe","id":2,"stream":"posture"}\n')
    s.settimeout(None)
    while True:
        while b"\n" in buf:
            line, _, buf = buf.partition(b"\n")
            t = time.monotonic()
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "orientation":
                print(f"orientation {msg.get('orientation')} {t:.6f}", flush=True)
            elif kind == "posture":
                print(f"posture {msg.get('posture')}", flush=True)
            elif kind == "reply" and not msg.get("ok"):
                print(f"error {msg}", flush=True)
                return 1
            elif kind == "goodbye":
                print(f"goodbye {msg}", flush=True)
                return 0
        data = s.recv(65536)
        if not data:
            return 0
        buf += data


def counter_client(path, n, latency):
    """Holds n connections subscribed to deviceMotion at 0.01 s; counts newlines only.
    stdin `mark` → stdout `mark {"t":…, "counts":[…], "bursts":[…]}`."""
    conns = []
    request = {"op": "subscribe", "id": 1, "stream": "deviceMotion", "interval": 0.01}
    if latency is not None:
        request["latency"] = latency
    line = (json.dumps(request) + "\n").encode()
    reply = None
    try:
        for _ in range(n):
            s, buf = connect(path)
            s.sendall(line)
            while True:
                msg, buf = read_json_line(s, buf, 10)
                if msg.get("type") == "reply":
                    break
            if not msg.get("ok"):
                err = msg.get("error", {})
                print(f"refused {err.get('code')}: {err.get('message')}", flush=True)
                return 0
            reply = msg
            s.setblocking(False)
            conns.append([s, buf.count(b"\n")])
    except (OSError, BenchError, ValueError) as e:
        print(f"error {e}", flush=True)
        return 1
    sel = selectors.DefaultSelector()
    for i, (s, _) in enumerate(conns):
        sel.register(s, selectors.EVENT_READ, i)
    sel.register(sys.stdin.buffer, selectors.EVENT_READ, "stdin")
    print("ready " + json.dumps(reply), flush=True)
    bursts = []
    last = 0.0
    while True:
        for key, _ in sel.select():
            if key.data == "stdin":
                cmd = sys.stdin.buffer.readline()
                if not cmd:
                    return 0
                print("mark " + json.dumps({"t": time.monotonic(), "counts": [c for _, c in conns],
                                            "bursts": bursts[-10000:]}), flush=True)
                continue
            conn = conns[key.data]
            try:
                data = conn[0].recv(262144)
            except BlockingIOError:
                continue
            if not data:
                print(f"error motiond closed connection {key.data}", flush=True)
                return 1
            conn[1] += data.count(b"\n")
            now = time.monotonic()
            if now - last >= 0.1:
                bursts.append(now)
            last = now


# ---------------------------------------------------------------------------------------------
# Report.

def fmt(v, digits=2):
    return "–" if v is None else f"{v:.{digits}f}"


def median_of(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def main():
    ap = argparse.ArgumentParser(prog="bench_power.py", description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--window", type=float, default=30.0, help="measurement window, seconds (default 30)")
    ap.add_argument("--runs", type=int, default=3, help="runs per scenario; medians are reported (default 3)")
    ap.add_argument("--scenario", action="append", choices=SCENARIOS, metavar="NAME",
                    help=f"run only this scenario (repeatable; default all: {', '.join(SCENARIOS)})")
    ap.add_argument("--motiond", default=DEFAULT_MOTIOND, help=f"the motiond binary (default {DEFAULT_MOTIOND})")
    ap.add_argument("--steps", type=int, default=10, help="orientation steps per desktop-rest run (default 10)")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds between start-up and the window (default 3)")
    ap.add_argument("--timeout", type=float, default=20.0, help="longest wait for any one thing, seconds (default 20)")
    ap.add_argument("--rest-interval", type=float, default=None, metavar="S",
                    help="motiond's rest-interval (seconds; default: its built-in 0.35), e.g. 0.7 for iio-sensor-proxy's polling pace")
    ap.add_argument("--no-proxy", action="store_true", help="skip iio-sensor-proxy in the desktop scenarios")
    ap.add_argument("--seed", type=int, default=None, help="random seed for step times and noise")
    args = ap.parse_args()
    if args.window <= 0 or args.runs < 1 or args.steps < 0 or args.timeout <= 0 or args.settle < 0:
        ap.error("--window, --timeout must be > 0, --runs >= 1, --steps and --settle >= 0")
    scenarios = args.scenario or SCENARIOS
    seen = set()
    scenarios = [s for s in scenarios if not (s in seen or seen.add(s))]

    needs = []
    if not (os.path.isfile(args.motiond) and os.access(args.motiond, os.X_OK)):
        raise BenchError(f"no motiond at {args.motiond} (make build, or --motiond PATH)")
    args.motiond = os.path.abspath(args.motiond)
    if any(s.startswith("desktop") or s in ("convertible-rest", "no-client") for s in scenarios):
        needs.append("umockdev-run")
        if "desktop-dbus" in scenarios:
            needs += ["dbus-daemon", "monitor-sensor", "stdbuf"]
        if not args.no_proxy:
            needs += ["dbus-daemon", "monitor-sensor", "stdbuf", IIO_SENSOR_PROXY]
    missing = [n for n in needs if shutil.which(n) is None]
    if missing:
        raise BenchError(f"missing: {', '.join(missing)}: run scripts/install-deps.sh bench")
    for path in ("/proc/self/schedstat", "/proc/self/task"):
        if not os.path.exists(path):
            raise BenchError(f"{path} is missing: this kernel does not provide the figures measured")

    rng = random.Random(args.seed)
    results = {}   # (scenario, daemon) -> list of rows
    order = []

    def record(key, row):
        if key not in results:
            results[key] = []
            order.append(key)
        results[key].append(row)

    for run in range(1, args.runs + 1):
        for sc in scenarios:
            first = MotiondDBusDesktop if sc == "desktop-dbus" else MotiondDesktop
            desktop_like = sc.startswith("desktop") or sc in ("convertible-rest", "no-client")
            daemons = [first] + ([] if args.no_proxy else [ProxyDesktop]) if desktop_like else [None]
            for cls in daemons:
                who = cls.name if cls else "motiond"
                print(f"run {run}/{args.runs}: {sc}, {who} …", file=sys.stderr, flush=True)
                if desktop_like:
                    row = desktop(args, sc, cls, sc == "desktop-moving", rng)
                elif sc.startswith("devicemotion-"):
                    row = simulated(args, int(sc.split("-")[1]), None, rng)
                else:
                    row = simulated(args, 1, 1.0, rng)
                record((sc, who), row)
                if "unsupported" in row:
                    print(f"  latency not supported by this motiond ({row['unsupported']})", file=sys.stderr)
                else:
                    extra = ""
                    if row.get("claim") is not None:
                        extra += f", claim → first value {row['claim']*1000:.0f} ms"
                    if row.get("latencies"):
                        extra += f", step latency median {statistics.median(row['latencies'])*1000:.0f} ms max {max(row['latencies'])*1000:.0f} ms"
                    if "lines" in row:
                        extra += f", {row['lines']:.1f} lines/client/s"
                    if "batch" in row:
                        extra += f", batch gap {fmt(row['batch'], 3)} s" if row["batch"] else ", no bursts (continuous)"
                    print(f"  CPU {row['cpu']:.3f} %, {row['wakeups']:.1f} wake-ups/s, RSS {row['rss']:.1f} MiB, USS {row['uss']:.2f} MiB{extra}",
                          file=sys.stderr, flush=True)

    header = ("| scenario | daemon | CPU % of a core | wake-ups/s | wake-ups per 10 ms | RSS MiB | USS (private dirty) MiB "
              "| claim → first value | step latency median / max | lines/s per client | batch gap |")
    print()
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for key in order:
        sc, who = key
        rows = results[key]
        if any("unsupported" in r for r in rows):
            print(f"| {sc} | {who} | latency not supported by this motiond | | | | | | | | |")
            continue
        lat = [x for r in rows for x in r.get("latencies", [])]
        lat_s = f"{statistics.median(lat)*1000:.0f} / {max(lat)*1000:.0f} ms ({len(lat)} steps)" if lat else "–"
        lines = median_of(rows, "lines")
        lines_s = "–" if lines is None else f"{lines:.1f} (min {median_of(rows, 'lines_min'):.1f})"
        batch = median_of(rows, "batch")
        if sc == "batching":
            batch_s = f"{batch:.3f} s" if batch is not None else "none (continuous)"
            if all(r.get("reply_latency") is None for r in rows):
                # an old daemon ignores the unknown field (PROTOCOL.md §2) instead of refusing it
                batch_s += "; the reply has no latency field" + (
                    ": latency ignored by this motiond" if batch is None else "")
        else:
            batch_s = "–"
        w10 = median_of(rows, "wake10ms")
        claims = [r["claim"] for r in rows if r.get("claim") is not None]
        claim_s = (f"{statistics.median(claims)*1000:.0f} ms (max {max(claims)*1000:.0f}, {len(claims)} runs)"
                   if claims else "–")
        print(f"| {sc} | {who} | {fmt(median_of(rows, 'cpu'), 3)} | {fmt(median_of(rows, 'wakeups'), 1)} | "
              f"{fmt(w10, 2) if w10 is not None else '–'} | {fmt(median_of(rows, 'rss'), 1)} | {fmt(median_of(rows, 'uss'), 2)} | {claim_s} | {lat_s} | {lines_s} | {batch_s} |")
    script = os.path.abspath(__file__)
    shown = os.path.relpath(script, REPO) if script.startswith(REPO + os.sep) else script
    print()
    print(f"{args.runs} run(s) per scenario, {args.window:g} s windows, medians over the runs. "
          f"Command (from the repository root): "
          f"{' '.join(shlex.quote(a) for a in ['python3', shown] + sys.argv[1:])}")
    return 0


def entry():
    if len(sys.argv) >= 2 and sys.argv[1] == "_orientation-client":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            return orientation_client(sys.argv[2], posture=sys.argv[3:] == ["posture"])
        except (OSError, BenchError, ValueError) as e:
            print(f"error {e}", flush=True)
            return 1
    if len(sys.argv) >= 2 and sys.argv[1] == "_counter-client":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        latency = float(sys.argv[4]) if len(sys.argv) > 4 else None
        return counter_client(sys.argv[2], int(sys.argv[3]), latency)

    def interrupted(signum, _frame):
        raise KeyboardInterrupt
    # SIGINT too: a shell starting us in the background may have set it to be ignored.
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    try:
        return main()
    except BenchError as e:
        print(f"bench-power: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench-power: interrupted", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)   # a second Ctrl-C must not stop the teardown
        CLEAN.all()


if __name__ == "__main__":
    sys.exit(entry())
