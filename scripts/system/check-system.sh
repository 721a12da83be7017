#!/bin/sh
# make check-system: motiond on a real Debian system in QEMU (TCG). Debian's own kernel boots a
# Debian root with systemd as PID 1 (scripts/system/build-guest.sh, cached under
# ~/.cache/motiond-system), the project installed into it by its own `make install DESTDIR=…
# PREFIX=/usr`; a uhid HID sensor hub (Tests/System/uhid-hub.c) makes the kernel's hid-sensor
# drivers create real IIO devices, udev's rule starts motiond.service, and
# Tests/System/run-tests.sh checks the result from inside and prints SYSTEM-TEST lines on the
# serial console. The project comes as its Debian package (make deb), which the guest installs
# with apt before the tests. Exit status: 0 when every check passed, 1 on a failure or a missing result.
#
# Environment: MOTIOND_SYSTEM_TIMEOUT (seconds for the whole boot, default 1200),
# MOTIOND_SYSTEM_SMP (virtual CPUs, default 1: one
# host core; 2 is about 10 s faster), MOTIOND_SYSTEM_VERBOSE=1 (the whole console
# instead of the SYSTEM-TEST lines, and the guest prints motiond's journal), MOTIOND_SYSTEM_KEEP=1 (keep the run directory).
set -eu
cd "$(dirname "$0")/../.."
timeout_s=${MOTIOND_SYSTEM_TIMEOUT:-1200}
smp=${MOTIOND_SYSTEM_SMP:-1}
cache=${MOTIOND_SYSTEM_CACHE:-$HOME/.cache/motiond-system}
export MOTIOND_SYSTEM_CACHE=$cache

scripts/install-deps.sh system
make -s build >&2

run=$(mktemp -d "${TMPDIR:-/tmp}/motiond-system.XXXXXX")
[ "${MOTIOND_SYSTEM_KEEP:-0}" = 1 ] || trap 'rm -rf "$run"' EXIT
echo "check-system: run directory $run" >&2

guest=$(scripts/system/build-guest.sh .build/release/motiond .build/release/motionctl)
vmlinuz=$(echo "$guest" | sed -n 's/^VMLINUZ=//p')
rootcpio=$(echo "$guest" | sed -n 's/^ROOTCPIO=//p')

# The project's Debian package and the test tools, in a second initramfs archive the kernel
# unpacks over the cached root; the guest installs the package with apt.
umask 022
stage=$run/stage
mkdir -p "$stage"
make -s deb >&2
mkdir -p "$stage/opt/motiond-system-test" "$stage/etc/systemd/system/multi-user.target.wants"
cp .build/deb/motiond_*.deb .build/deb/motiond-sensor-proxy_*.deb .build/deb/python3-motiond_*.deb "$stage/opt/motiond-system-test/"
# Debian's iio-sensor-proxy (the root's), for the guest's swap back: the guest has no network.
(cd "$stage/opt/motiond-system-test" && apt-get download iio-sensor-proxy >&2 2>/dev/null || apt-get download iio-sensor-proxy >&2)
install -m755 Tests/System/qt-sensors.py "$stage/opt/motiond-system-test/qt-sensors.py"
cc -static -O2 -Wall -o "$stage/opt/motiond-system-test/uhid-hub" Tests/System/uhid-hub.c -lm
install -m755 Tests/System/run-tests.sh "$stage/opt/motiond-system-test/run-tests.sh"
install -m644 Tests/System/motiond-system-test.service "$stage/etc/systemd/system/"
ln -s ../motiond-system-test.service "$stage/etc/systemd/system/multi-user.target.wants/"
chmod 755 "$stage"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$run/project.cpio"
cat "$rootcpio" "$run/project.cpio" > "$run/initrd.cpio"

quiet="quiet"
[ "${MOTIOND_SYSTEM_VERBOSE:-0}" = 1 ] && quiet="motiond.test.verbose=1"
echo "check-system: booting $(basename "$vmlinuz") with systemd (TCG, $smp CPUs, timeout ${timeout_s} s)" >&2
start=$(date +%s)
# The guest's suspend check (suspend-resume) sleeps in S3, and QEMU's RTC alarm does not wake
# it: the host does, through QMP, once the guest has been suspended for about 3 s (as a
# laptop's lid or power button would).
qmp() { printf '{"execute":"qmp_capabilities"}\n{"execute":"%s"}\n' "$1" | socat -t1 - "UNIX-CONNECT:$run/qmp.sock" 2>/dev/null; }
(asleep=0
 while sleep 1; do
     case $(qmp query-status) in *'"status": "suspended"'*) asleep=$((asleep + 1)) ;; *) asleep=0 ;; esac
     if [ $asleep -ge 3 ]; then qmp system_wakeup >/dev/null; asleep=0; fi
 done) &
waker=$!
set +e
timeout "$timeout_s" qemu-system-x86_64 -qmp "unix:$run/qmp.sock,server=on,wait=off" -accel tcg -smp "$smp" -m 2048 -nographic -no-reboot \
    -kernel "$vmlinuz" -initrd "$run/initrd.cpio" \
    -append "console=ttyS0 panic=-1 rdinit=/sbin/init $quiet" </dev/null 2>&1 |
    tr -d '\r' | tee "$run/console.log" |
    if [ "${MOTIOND_SYSTEM_VERBOSE:-0}" = 1 ]; then cat; else grep --line-buffered -E '^(SYSTEM-TEST|SYSTEM-POWER|DIAG)'; fi
kill $waker
set -e
echo "check-system: guest ran $(( $(date +%s) - start )) s" >&2

passed=$(grep -c '^SYSTEM-TEST [^ ]* PASS' "$run/console.log" || true)
failed=$(grep -c '^SYSTEM-TEST [^ ]* FAIL' "$run/console.log" || true)
status=0
if ! grep -q '^SYSTEM-TEST-END' "$run/console.log"; then
    echo "check-system: the guest did not finish its tests (timeout or crash); console tail:" >&2
    tail -40 "$run/console.log" >&2
    failed=$((failed + 1)); status=1
fi
# Every check the runner knows must have reported.
for name in package-install iio-devices udev-started-service device-permissions udev-rule-run accelerometer-buffered accelerometer-values \
            magnetometer-timestamps journal orientation-landscape shake unplug replug hub-timestamps unplug-without-udev replug-streaming \
            coexistence python-device-motion watchdog-restart restart-state package-swap reload dbus-monitor-sensor qt-sensors rotate-helper package-swap-back suspend-resume buffer-reads stop-restores socket-activation security convertible-posture tablet-mode-switch package-remove-purge; do
    grep -q "^SYSTEM-TEST $name " "$run/console.log" || { echo "check-system: no result for $name" >&2; failed=$((failed + 1)); status=1; }
done
[ "$failed" -eq 0 ] || status=1
[ "$status" -eq 0 ] || { echo "check-system: console log kept in $run/console.log" >&2; trap - EXIT; }
echo "$passed passed, $failed failed"
exit $status
