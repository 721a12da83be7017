#!/bin/sh
# Installs the Debian packages motiond needs to build, run and test, when any is missing.
# Usage: scripts/install-deps.sh [build|test|bench|system|deb|peer|python]   (test adds the emulation tools; bench
# adds what make bench-power drives: umockdev, iio-sensor-proxy with its private D-Bus system bus;
# system adds what make check-system needs: QEMU, mmdebstrap, cpio, a static C toolchain; deb
# what make deb needs: debhelper, lintian and the package's Build-Depends; peer what make check-peer
# runs iio-sensor-proxy's own integration tests with, and their fr_FR.UTF-8 locale; python what
# make python-wheel and check-python build and install the Python package with, offline)
set -eu
want="pkg-config libiio-dev libiio-utils libsystemd-dev libudev-dev"
# dbus-daemon is its own package from Debian 12 on; before, it is in dbus.
bus=dbus
apt-cache show dbus-daemon >/dev/null 2>&1 && bus=dbus-daemon
if [ "${1:-build}" = test ]; then
    want="$want iiod umockdev libumockdev-dev systemd udev python3"
    # motiond-rotate's tests: a headless sway, Xvfb with xrandr, and wlr-randr.
    want="$want sway xvfb x11-xserver-utils wlr-randr"
    # motionctl plot --output FILE.png converts its SVG with rsvg-convert.
    want="$want librsvg2-bin"
    # The D-Bus face's tests: a private system bus, busctl/gdbus, python-dbusmock's polkit,
    # and iio-sensor-proxy (its monitor-sensor client, and itself side by side).
    # PeerSuiteTests' client (Tests/Tools/sensor-proxy-client.py) speaks python-dbus on a GLib loop.
    want="$want $bus libglib2.0-bin python3-dbusmock python3-dbus python3-gi iio-sensor-proxy coreutils"
    # QtSensorsTests: Qt's own iio-sensor-proxy backend as a desktop application uses it.
    want="$want python3-pyqt5.qtsensors"
    # The manual pages are rendered as a user would (man -l); the completions run in each shell.
    want="$want man-db groff-base zsh fish"
    # readelf: which libraries the client binary links.
    want="$want binutils"
fi
# The Python package: a venv, pip, and setuptools and wheel both installed (for pip wheel
# --no-build-isolation) and as wheels (/usr/share/python-wheels, for pip install into the venv).
python="python3 python3-venv python3-pip python3-setuptools python3-wheel python3-setuptools-whl python3-wheel-whl"
if [ "${1:-build}" = test ] || [ "${1:-build}" = python ]; then
    want="$want $python"
fi
if [ "${1:-build}" = deb ]; then
    want="$want debhelper dpkg-dev lintian pkgconf python3 dh-python python3-all python3-setuptools pybuild-plugin-pyproject xz-utils iproute2"
fi
if [ "${1:-build}" = system ]; then
    # socat speaks QMP to wake the guest from its suspend check; gcc-12, make and xz-utils build
    # the software-trigger modules Debian's kernel lacks (scripts/system/build-guest.sh).
    want="$want qemu-system-x86 mmdebstrap cpio gcc gcc-12 make xz-utils libc6-dev kmod coreutils socat"
fi
if [ "${1:-build}" = bench ]; then
    # iio-sensor-proxy brings monitor-sensor (the benchmark's client for it); stdbuf is coreutils.
    want="$want umockdev iio-sensor-proxy $bus python3 coreutils"
fi
if [ "${1:-build}" = peer ]; then
    # The suite's own imports (dbus, dbusmock, psutil, GLib/Gio and UMockdev through GObject
    # introspection), umockdev-wrapper, a private bus, monitor-sensor and the peer itself.
    want="$want python3 python3-dbus python3-dbusmock python3-psutil python3-gi gir1.2-umockdev-1.0"
    want="$want umockdev $bus iio-sensor-proxy locales"
fi
missing=""
for pkg in $want; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
    echo "installing Debian packages:$missing"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# The suite checks decimal commas under LC_NUMERIC=fr_FR.UTF-8: that locale must be generated.
if [ "${1:-build}" = peer ] && ! locale -a 2>/dev/null | grep -qix 'fr_FR.utf-\{0,1\}8'; then
    echo "generating the fr_FR.UTF-8 locale"
    $sudo sed -i 's/^# *\(fr_FR.UTF-8 UTF-8\)/\1/' /etc/locale.gen
    grep -q '^fr_FR.UTF-8 UTF-8' /etc/locale.gen || echo 'fr_FR.UTF-8 UTF-8' | $sudo tee -a /etc/locale.gen >/dev/null
    $sudo locale-gen >/dev/null
fi
