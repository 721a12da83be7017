#!/bin/sh
# Installs the Debian packages motiond needs to build, run and test, when any is missing.
# Usage: scripts/install-deps.sh [build|test|bench|system|deb]   (test adds the emulation tools; bench
# adds what make bench-power drives: umockdev, iio-sensor-proxy with its private D-Bus system bus;
# system adds what make check-system needs: QEMU, mmdebstrap, cpio, a static C toolchain; deb
# what make deb needs: debhelper, lintian and the package's Build-Depends)
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
    want="$want $bus libglib2.0-bin python3-dbusmock iio-sensor-proxy coreutils"
    # The manual pages are rendered as a user would (man -l); the completions run in each shell.
    want="$want man-db groff-base zsh fish"
    # readelf: which libraries the client binary links.
    want="$want binutils"
fi
if [ "${1:-build}" = deb ]; then
    want="$want debhelper dpkg-dev lintian pkgconf python3"
fi
if [ "${1:-build}" = system ]; then
    # socat speaks QMP to wake the guest from its suspend check.
    want="$want qemu-system-x86 mmdebstrap cpio gcc libc6-dev kmod coreutils socat"
fi
if [ "${1:-build}" = bench ]; then
    # iio-sensor-proxy brings monitor-sensor (the benchmark's client for it); stdbuf is coreutils.
    want="$want umockdev iio-sensor-proxy $bus python3 coreutils"
fi
missing=""
for pkg in $want; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
echo "installing Debian packages:$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
