#!/usr/bin/python3
"""Runs iio-sensor-proxy's own integration tests against motiond (or the installed peer).

Usage (through scripts/check-peer.sh): run_upstream.py --source CHECKOUT --daemon motiond|peer
[--motiond PATH] [TEST_NAME...]

The suite (CHECKOUT/tests/integration-test.py, GPL) is imported as it is, never copied: the
class below subclasses its test case and adapts, at run time, only what is not the D-Bus API.
Prints one line per test and a summary; exits 0 when every test run passed.

Adaptations, one line each (the details where each is made):
- command line: motiond-as-peer turns the peer's `-v` into motiond's options (the D-Bus face on the suite's bus).
- log wording: a phrase of the peer's log is looked up as the line motiond logs for the same fact (MOTIOND_LOG).
- configured while read: motiond sets a device up only while a client reads it, so that is looked at during a claim.
- sampling frequency: motiond picks at or above the rate it reads at (docs/SENSORS.md); checked, then mapped to the peer's.
- sysfs's newline: the kernel ends every value with one (libiio drops the last character) and ignores libiio's NUL.
- buffer data: the peer built for tests reads the suite's data file for its node; motiond's node is fed from that file.
- fake drivers: their own two tests are excluded; two others get a real emulated IIO light in place of the fake sensor.
- hwmon pace: the peer polls hwmon light every 0.5 s only in its test build (8 s on hardware), motiond every 0.8 s: a write waits for the next reading.
"""

import argparse
import importlib.util
import math
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

# The peer's two fake drivers (FAKE_LIGHT_SENSOR, FAKE_COMPASS environment switches) are its own
# test doubles, not hardware: their tests say nothing about the API.
EXCLUDED = {"test_fake_light", "test_fake_compass"}

# What the suite's log assertions look for in the peer's log, and the line motiond logs for the
# same fact (adaptation: assertions on the peer's own log wording), with whether motiond shows
# it only while it reads the device (it probes and configures a device when a client wants it,
# the peer when it starts: the harness then claims the accelerometer as a second client while
# it looks). A phrase missing here is looked up as it is.
MOTIOND_LOG = {
    # The device is taken as a buffered accelerometer (the peer: its iio-buffer-accel driver,
    # which has built the channel array from the scan elements).
    "iio-buffer-accel": ("; read buffered (", False),
    "Built channel array": ("; read buffered (", False),
    # Its buffer gives nothing: the peer disables that driver and offers the accelerometer
    # through its poll driver; motiond says the buffer gave nothing and still reads the sensor.
    "Disabled sensor": ("produced no data within", True),
    "Found IIO poll accelerometer": ("reading accelerometer from", True),
    # A reading came through the buffer / through sysfs polling.
    "Accel sent by driver": (", buffered, every", True),
    "Accel read from IIO on": (", polling, every", True),
    # The peer prints the scales it read with the locale's %f (0,000010 under fr_FR). The facts:
    # the scale was read right, not as 0 or 1 (a locale-bound strtod's failures); motiond prints
    # sysfs numbers in C notation whatever the locale.
    "scale: 0,000010,0,000010,0,000010": ("scale 0.00001 0.00001 0.00001,", False),
    "scale: 0,000000,0,000000,0,000000": ("scale 0 0 0,", False),
    "scale 0,000001,0,000001,0,000001": ("scale 0.000001 0.000001 0.000001,", False),
    "scale 1,000000,1,000000,1,000000": ("scale 1 1 1,", False),
}

# The peer's start-up rule: a sampling frequency below 10 Hz is raised to the lowest listed value
# at or above 10 Hz (else the highest below), written in the shortest form.
PEER_MINIMUM_FREQUENCY = 10.0


def shortest(value):
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def listed(text):
    try:
        return [float(v) for v in text.split()] if text else None
    except ValueError:
        return None


def peer_frequency(current, available):
    """What the peer writes at start-up (or keeps)."""
    if current is not None and current >= PEER_MINIMUM_FREQUENCY:
        return current
    values = [v for v in available or [] if v != 0]
    higher = [v for v in values if v >= PEER_MINIMUM_FREQUENCY]
    lower = [v for v in values if v < PEER_MINIMUM_FREQUENCY]
    return min(higher) if higher else max(lower) if lower else PEER_MINIMUM_FREQUENCY


def motiond_frequency(current, available, period_ms):
    """What motiond's rule gives a device it polls every period_ms (docs/SENSORS.md): the lowest
    listed value at or above its read rate, else the highest; unlisted, the rate rounded up unless
    the device already runs at least that fast."""
    wanted = 1000.0 / period_ms
    values = sorted(v for v in available or [] if v > 0)
    if values:
        return next((v for v in values if v >= wanted - 1e-9), values[-1])
    return current if current is not None and current >= wanted - 1e-9 else math.ceil(wanted)


def load_suite_module(source):
    path = os.path.join(source, "tests", "integration-test.py")
    if not os.path.exists(path):
        sys.exit(f"{path} not found: PEER_SOURCE must be a checkout of iio-sensor-proxy (tag 3.9.0)")
    spec = importlib.util.spec_from_file_location("peer_integration_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SysfsTestbed:
    """The suite's umockdev testbed with sysfs's conventions, and real sensors for the fakes.

    Adaptation (sysfs's trailing newline): the kernel ends every attribute value with a newline,
    umockdev writes values as given; motiond reads sysfs through libiio, which drops an attribute's
    last character as that newline, so values get it here as the kernel would give it.
    """

    def __init__(self, testbed, feed_nodes, around_write=None):
        self._testbed = testbed
        self._feed_nodes = feed_nodes
        self._around_write = around_write
        self._feeders = []
        self.light = None

    def __getattr__(self, name):
        return getattr(self._testbed, name)

    @staticmethod
    def _line(value):
        return value if value.endswith("\n") else value + "\n"

    def add_device(self, subsystem, name, parent, attributes, properties):
        if subsystem == "input" and name in ("fake-light", "fake-compass"):
            # Adaptation (fake drivers): the peer's fake sensor is replaced by a real emulated IIO
            # light sensor, the kind both daemons read (0 lux, raised after each release: ClaimingProxy).
            self.light = self._testbed.add_device(
                "iio", "iio-als", None,
                ["integration_time", "1\n", "in_illuminance_input", "0\n", "in_illuminance_scale", "1.0\n",
                 "name", "IIO Test Light\n"],
                ["NAME", '"IIO Light Sensor"', "IIO_SENSOR_PROXY_TYPE", "iio-poll-als"])
            return self.light
        values = [self._line(v) if i % 2 else v for i, v in enumerate(attributes)]
        syspath = self._testbed.add_device(subsystem, name, parent, values, properties)
        if self._feed_nodes and subsystem == "iio" and "DEVNAME" in properties[::2]:
            self._feeders.append(BufferFeed(self._testbed.get_root_dir(), name, attributes))
        return syspath

    def stop(self):
        for feeder in self._feeders:
            feeder.stop()

    def set_attribute(self, device, name, value):
        def write():
            self._testbed.set_attribute(device, name, self._line(value))
        if self._around_write:
            self._around_write(name, write)
        else:
            write()


class BufferFeed:
    """Feeds a buffered device's node from the suite's data file, as the kernel fills a buffer.

    Adaptation (buffer data): the peer built for tests reads $UMOCKDEV_DIR/iio-dev-data.bin in
    place of its device node (its utils.c, get_device_file); motiond reads the node, as on
    hardware. The node libiio opens (/dev/<sysfs name>) becomes a FIFO filled while
    buffer/enable is 1 (emptied when it is set again, as the kernel resets its buffer): whenever
    the data file appears or changes, its scans are written once, then its last scan (the pose the
    recording ends in, the one the peer uses) at the device's sampling_frequency (10 Hz when it
    has none) while the file exists.
    """

    def __init__(self, root, name, attributes):
        self._data = os.path.join(root, "iio-dev-data.bin")
        self._enable = os.path.join(root, "sys", "devices", name, "buffer", "enable")
        self._frequency = os.path.join(root, "sys", "devices", name, "sampling_frequency")
        os.makedirs(os.path.join(root, "dev"), exist_ok=True)
        node = os.path.join(root, "dev", name)
        os.mkfifo(node)
        # Read-write: the open does not wait for a reader, and the FIFO never reports a hang-up.
        self._fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
        self._scan = self._scan_size(dict(zip(attributes[::2], attributes[1::2])))
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _scan_size(attributes):
        """The kernel's scan layout: each enabled-by-the-test element aligned to its storage size."""
        size = largest = 0
        elements = sorted((int(v), k[: -len("_index")]) for k, v in attributes.items() if k.endswith("_index"))
        for _, element in elements:
            storage = int(attributes[element + "_type"].split("/")[1].split(">>")[0].split("X")[0]) // 8
            size = (size + storage - 1) // storage * storage + storage
            largest = max(largest, storage)
        return (size + largest - 1) // largest * largest if largest else 0

    @staticmethod
    def _attribute(path):
        try:
            with open(path, "rb") as f:
                return f.read().strip(b"\0\n ").decode()
        except (OSError, UnicodeDecodeError):
            return None

    def _enabled(self):
        return self._attribute(self._enable) == "1"

    def _period(self):
        try:
            return 1 / float(self._attribute(self._frequency))
        except (TypeError, ValueError, ZeroDivisionError):
            return 0.1

    def _drain(self):
        try:
            while os.read(self._fd, 65536):
                pass
        except BlockingIOError:
            pass

    def _run(self):
        seen = None
        while not self._stopped.wait(self._period()):
            if not self._enabled():
                if seen != "disabled":
                    self._drain()
                seen = "disabled"
                continue
            try:
                with open(self._data, "rb") as f:
                    stat = os.fstat(f.fileno())
                    data = f.read()
            except FileNotFoundError:
                seen = None
                continue
            if not self._scan or len(data) < self._scan:
                continue
            version = (stat.st_ino, stat.st_mtime_ns, len(data))
            chunk = data[: len(data) // self._scan * self._scan] if version != seen else data[-self._scan:]
            seen = version
            try:
                os.write(self._fd, chunk)
            except BlockingIOError:
                pass  # nobody reads: a full kernel buffer drops scans too

    def stop(self):
        self._stopped.set()
        self._thread.join()
        os.close(self._fd)


class ClaimingProxy:
    """The suite's proxy; a release of the light raises the emulated light by 1 lux.

    Adaptation (fake light): the peer's fake light gives 0, 1, 2 … lux, one more at each reading;
    the real sensor standing in for it is raised after each release, so the next claim (the
    test's or monitor-sensor's) reads the next value, while nobody reads it in between.
    """

    def __init__(self, proxy, testbed):
        self._proxy = proxy
        self._testbed = testbed
        self._lux = 0

    def __getattr__(self, name):
        return getattr(self._proxy, name)

    def ReleaseLight(self):
        self._proxy.ReleaseLight()
        if self._testbed.light:
            self._lux += 1
            self._testbed.set_attribute(self._testbed.light, "in_illuminance_input", str(self._lux))


def adapted_case(module, daemon):
    base = module.Tests
    Gio, GLib = module.Gio, module.GLib

    class Adapted(base):
        def setUp(self):
            super().setUp()
            self.testbed = SysfsTestbed(self.testbed, feed_nodes=daemon == "motiond",
                                        around_write=self._hwmon_light_write if daemon == "motiond" else None)

        def tearDown(self):
            self.testbed.stop()
            super().tearDown()

        def start_daemon(self, env=None, wrapper=None):
            super().start_daemon(env, wrapper)
            self.proxy = ClaimingProxy(self.proxy, self.testbed)

        def _hwmon_light_write(self, attribute, write):
            """Adaptation (hwmon pace): the test reads the level 0.5 s after writing it, the
            period of the peer's hwmon poll in its test build only (DEFAULT_POLL_TIME in
            drv-hwmon-light.c: 8 s otherwise); motiond reads a claimed light every 0.8 s, so a
            write of hwmon's `light` waits (up to 2 s) until the level on the bus has changed."""
            if attribute != "light" or self.daemon is None:
                write()
                return
            before = self.get_dbus_property("LightLevel")
            write()
            deadline = time.monotonic() + 2
            while self.get_dbus_property("LightLevel") == before and time.monotonic() < deadline:
                time.sleep(0.05)

        def get_compass_dbus_property(self, name):
            # Adaptation (fake compass): the test's second sensor is the emulated light standing in
            # for the fake compass (SysfsTestbed.add_device): its presence is asked for instead.
            if name == "HasCompass" and self.testbed.light:
                return self.get_dbus_property("HasAmbientLight")
            return super().get_compass_dbus_property(name)

        def read_sysfs_attr(self, device, attribute):
            if daemon == "motiond" and attribute.startswith("scan_elements/"):
                # Looked at once motiond reads the device through its buffer.
                value = self._while_reading(lambda: self._sysfs(device, "buffer/enable") == b"1",
                                            lambda: self._sysfs(device, attribute))
            elif daemon == "motiond" and attribute == "sampling_frequency":
                value = self._peer_frequency_for(device)
            else:
                value = self._sysfs(device, attribute)
            return value

        def _sysfs(self, device, attribute):
            # Adaptation (sysfs's trailing newline): the values compared were written without one.
            # And libiio writes a value with its terminating NUL, which the kernel ignores and the
            # testbed's plain file keeps.
            value = base.read_sysfs_attr(self, device, attribute).rstrip(b"\0")
            return value[:-1] if value.endswith(b"\n") else value

        def _while_reading(self, done, result):
            """Adaptation (configured while read): the peer sets its devices up (sampling
            frequency, scan elements, a buffer probe) when it starts; motiond does when a client
            wants a device, and puts it back afterwards (docs/SENSORS.md). So what the test
            looks at is looked at while a second client of the harness claims the accelerometer
            (up to 5 s, until `done`); the test's own claims are left as they are."""
            connection = Gio.DBusConnection.new_for_address_sync(
                os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
                Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
                None, None)
            try:
                proxy = Gio.DBusProxy.new_sync(connection, Gio.DBusProxyFlags.DO_NOT_AUTO_START, None,
                                               module.SP, module.SP_PATH, module.SP, None)
                try:
                    proxy.ClaimAccelerometer()
                except GLib.GError as error:
                    sys.stderr.write(f"check-peer: the harness's claim failed: {error}\n")
                deadline = time.monotonic() + 5
                while not done() and time.monotonic() < deadline:
                    time.sleep(0.05)
                value = result()
                proxy.ReleaseAccelerometer()
                return value
            finally:
                connection.close_sync(None)

        def _peer_frequency_for(self, device):
            """Adaptation (start-up sampling frequency): the peer raises a device's frequency to
            at least 10 Hz when it starts; motiond sets it, while it reads the device, to at least
            the rate it reads at (a polled driver may wait for a fresh sample in every read,
            docs/SENSORS.md), from the same list. The value motiond wrote is checked against
            motiond's rule for the period it logged; when it follows it, the test gets what the
            peer's rule gives for the same attributes, else what motiond wrote."""
            current = listed(self._sysfs(device, "sampling_frequency").decode())
            available = listed(self._sysfs(device, "sampling_frequency_available").decode()) \
                if os.path.exists(self.testbed.get_root_dir() + device + "/sampling_frequency_available") else None
            period = []

            def logged():
                with open(self.log.name) as f:
                    found = re.findall(r"reading accelerometer from .*?, (?:polling|buffered), every ([0-9.]+) ms", f.read())
                period[:] = [float(found[-1])] if found else []
                return bool(period)

            written = self._while_reading(logged, lambda: self._sysfs(device, "sampling_frequency"))
            if not period:
                return written
            expected = motiond_frequency(current[0] if current else None, available, period[0])
            if listed(written.decode()) != [expected]:
                sys.stderr.write(f"check-peer: motiond wrote sampling_frequency {written!r}, its rule gives {shortest(expected)} "
                                 f"for a {shortest(period[0])} ms period\n")
                return written
            return shortest(peer_frequency(current[0] if current else None, available)).encode()

        def count_text_in_log(self, text):
            if daemon != "motiond" or text not in MOTIOND_LOG:
                return super().count_text_in_log(text)
            text, while_reading = MOTIOND_LOG[text]
            if while_reading and not super().count_text_in_log(text):
                self._while_reading(lambda: super(Adapted, self).count_text_in_log(text) > 0, lambda: None)
            return super().count_text_in_log(text)

    Adapted.__name__ = Adapted.__qualname__ = "Tests"
    return Adapted


class Report(unittest.TextTestResult):
    """One line per test: PASS, FAIL, ERROR or SKIP and its name."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.append(("PASS", test._testMethodName))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes.append(("FAIL", test._testMethodName))

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes.append(("ERROR", test._testMethodName))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes.append(("SKIP", test._testMethodName))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="a checkout of iio-sensor-proxy (tag 3.9.0)")
    parser.add_argument("--daemon", choices=["motiond", "peer"], default="motiond")
    parser.add_argument("--motiond", default=os.path.join(HERE, "..", "..", ".build", "debug", "motiond"))
    parser.add_argument("tests", nargs="*", help="test names (default: all but the fake drivers')")
    args = parser.parse_args()

    # The suite runs itself under umockdev-wrapper (its __main__ does so); so does this.
    if "umockdev" not in os.environ.get("LD_PRELOAD", ""):
        os.execvp("umockdev-wrapper", ["umockdev-wrapper", sys.executable] + sys.argv)

    source = os.path.abspath(args.source)
    run_dir = tempfile.mkdtemp(prefix="check-peer-")
    # The suite runs "$top_builddir/src/iio-sensor-proxy -v" and "$top_builddir/src/monitor-sensor"
    # when it finds them, and reads its data files from $top_srcdir/tests.
    os.makedirs(os.path.join(run_dir, "src"))
    if args.daemon == "motiond":
        motiond = os.path.abspath(args.motiond)
        if not os.access(motiond, os.X_OK):
            sys.exit(f"{motiond} is not an executable: build motiond first (swift build)")
        os.environ["PEER_MOTIOND"] = motiond
        os.environ["PEER_RUN_DIR"] = run_dir
        daemon_path = os.path.join(HERE, "motiond-as-peer")
    else:
        daemon_path = next((p for p in ("/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy")
                            if os.access(p, os.X_OK)), None)
        if not daemon_path:
            sys.exit("iio-sensor-proxy is not installed (scripts/install-deps.sh peer)")
    os.symlink(daemon_path, os.path.join(run_dir, "src", "iio-sensor-proxy"))
    os.symlink("/usr/bin/monitor-sensor", os.path.join(run_dir, "src", "monitor-sensor"))
    os.environ["top_builddir"] = run_dir
    os.environ["top_srcdir"] = source

    module = load_suite_module(source)
    case = adapted_case(module, args.daemon)
    names = args.tests or sorted(n for n in unittest.TestLoader().getTestCaseNames(case) if n not in EXCLUDED)
    suite = unittest.TestSuite(case(name) for name in names)
    runner = unittest.TextTestRunner(resultclass=Report, verbosity=2, stream=sys.stderr)
    try:
        result = runner.run(suite)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)

    print(f"\niio-sensor-proxy integration tests ({source}) against {args.daemon}:")
    for outcome, name in result.outcomes:
        print(f"  {outcome:5} {name}")
    passed = sum(1 for outcome, _ in result.outcomes if outcome == "PASS")
    print(f"{passed} of {len(result.outcomes)} passed (excluded: {', '.join(sorted(EXCLUDED))})")
    return 0 if result.wasSuccessful() and passed == len(result.outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
