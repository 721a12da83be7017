#!/bin/sh
# make check-system: motiond on a real Debian system in QEMU (TCG). Debian's own kernel boots a
# Debian root with systemd as PID 1 (scripts/system/build-guest.sh, cached under
# ~/.cache/motiond-system), the project installed into it by its own `make install DESTDIR=…
# PREFIX=/usr`; a uhid HID sensor hub (Tests/System/uhid-hub.c) makes the kernel's hid-sensor
# drivers create real IIO devices, udev's rule starts motiond.service, and
# Tests/System/run-tests.sh checks the result from inside and prints SYSTEM-TEST lines on the
# serial console. The project comes as its Debian package (make deb), which the guest installs
# with apt before the tests. Two guests run side by side, one host core each, each with its part
# of the checks (run-tests.sh: `hub` and `system`). Exit status: 0 when every check passed, 1 on
# a failure or a missing result.
#
# Environment: MOTIOND_SYSTEM_TIMEOUT (seconds for each guest's whole boot, default 1200),
# MOTIOND_SYSTEM_SMP (virtual CPUs of each guest, default 1: one host core),
# MOTIOND_SYSTEM_PARTS (the parts booted, default "hub system"; "boards" boots the I2C board
# checks, which the system part runs too, alone), MOTIOND_SYSTEM_VERBOSE=1 (the
# whole consoles instead of the SYSTEM-TEST lines, and the guests print motiond's journal),
# MOTIOND_SYSTEM_KEEP=1 (keep the run directory).
set -eu
cd "$(dirname "$0")/../.."
timeout_s=${MOTIOND_SYSTEM_TIMEOUT:-1200}
smp=${MOTIOND_SYSTEM_SMP:-1}
parts=${MOTIOND_SYSTEM_PARTS:-hub system}
cache=${MOTIOND_SYSTEM_CACHE:-$HOME/.cache/motiond-system}
export MOTIOND_SYSTEM_CACHE=$cache

scripts/install-deps.sh system
run=$(mktemp -d "${TMPDIR:-/tmp}/motiond-system.XXXXXX")
[ "${MOTIOND_SYSTEM_KEEP:-0}" = 1 ] || trap 'rm -rf "$run"' EXIT
echo "check-system: run directory $run" >&2

# The project's Debian package (its release build is the one the guest runs: the root gets the
# libraries its programs link), and the test tools, in a second initramfs archive the kernel
# unpacks over the cached root; the guest installs the package with apt.
make -s deb >&2
dpkg-deb -x .build/deb/motiond_*.deb "$run/package"
guest=$(scripts/system/build-guest.sh "$run/package/usr/bin/motiond" "$run/package/usr/bin/motionctl")
vmlinuz=$(echo "$guest" | sed -n 's/^VMLINUZ=//p')
rootcpio=$(echo "$guest" | sed -n 's/^ROOTCPIO=//p')
umask 022
stage=$run/stage
mkdir -p "$stage"
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
echo "check-system: booting $(basename "$vmlinuz") with systemd, one guest for each part: $parts (TCG, $smp CPUs each, timeout ${timeout_s} s)" >&2
start=$(date +%s)
# One guest: its console in $run/PART.log (what it prints goes to standard output as it comes),
# without terminal escapes: systemd's status lines (verbose: not "quiet") end in an erase-line
# escape that would otherwise stand before the next line's SYSTEM-TEST.
# The guest's suspend check (suspend-resume) sleeps in S3, and QEMU's RTC alarm does not wake
# it: the host does, through QMP, once the guest has been suspended for about 3 s (as a
# laptop's lid or power button would).
boot() { # part
    qmp() { printf '{"execute":"qmp_capabilities"}\n{"execute":"%s"}\n' "$1" | socat -t1 - "UNIX-CONNECT:$run/$part.qmp" 2>/dev/null; }
    part=$1
    (asleep=0
     while sleep 1; do
         case $(qmp query-status) in *'"status": "suspended"'*) asleep=$((asleep + 1)) ;; *) asleep=0 ;; esac
         if [ $asleep -ge 3 ]; then qmp system_wakeup >/dev/null; asleep=0; fi
     done) &
    waker=$!
    timeout "$timeout_s" qemu-system-x86_64 -qmp "unix:$run/$part.qmp,server=on,wait=off" -accel tcg -smp "$smp" -m 2048 -nographic -no-reboot \
        -kernel "$vmlinuz" -initrd "$run/initrd.cpio" \
        -append "console=ttyS0 panic=-1 rdinit=/sbin/init $quiet motiond.test.part=$part" </dev/null 2>&1 |
        tr -d '\r' | sed -u 's/\x1b\[[0-9;?]*[A-Za-z]//g' | tee "$run/$part.log" |
        if [ "${MOTIOND_SYSTEM_VERBOSE:-0}" = 1 ]; then cat; else grep --line-buffered -E '^(SYSTEM-TEST|SYSTEM-POWER|DIAG)'; fi
    kill $waker
    echo "check-system: the $part guest ran $(( $(date +%s) - start )) s" >&2
}
set +e
guests=""
for part in $parts; do boot "$part" & guests="$guests $!"; done
wait $guests
set -e

# Every check a part's runner knows must have reported, in that part's guest (those of the
# package and the hub in both).
common="package-install iio-devices udev-started-service device-permissions udev-rule-run buffer-reads"
checks_hub="accelerometer-buffered accelerometer-values magnetometer-timestamps journal orientation-landscape shake hub-rate-at-rest unplug replug
            hub-timestamps unplug-without-udev replug-streaming coexistence package-swap
            reload dbus-monitor-sensor qt-sensors swap-buffer-taken-over rotate-helper package-swap-back"
checks_boards="board-discovery board-values-mpu6050 board-unplug board-values-bmi160 board-stop-restores"
checks_system="python-device-motion watchdog-restart restart-state suspend-resume stop-restores socket-activation security convertible-posture
               tablet-mode-switch $checks_boards package-remove-purge"
passed=0; failed=0; status=0
for part in $parts; do
    log=$run/$part.log
    passed=$((passed + $(grep -c '^SYSTEM-TEST [^ ]* PASS' "$log" || true)))
    failed=$((failed + $(grep -c '^SYSTEM-TEST [^ ]* FAIL' "$log" || true)))
    if ! grep -q '^SYSTEM-TEST-END' "$log"; then
        echo "check-system: the $part guest did not finish its tests (timeout or crash); console tail:" >&2
        tail -40 "$log" >&2
        failed=$((failed + 1)); status=1
    fi
    # Again at the end, where a CI log's tail shows them.
    grep '^SYSTEM-TEST [^ ]* FAIL' "$log" | cut -c1-400 | sed "s/^/check-system: in the $part guest: /" >&2
    eval "names=\$checks_$part"
    for name in $common $names; do
        grep -q "^SYSTEM-TEST $name " "$log" || { echo "check-system: no result for $name in the $part guest" >&2; failed=$((failed + 1)); status=1; }
    done
done
[ "$failed" -eq 0 ] || status=1
[ "$status" -eq 0 ] || { echo "check-system: console logs kept in $run/*.log" >&2; trap - EXIT; }
echo "$passed passed, $failed failed"
exit $status
