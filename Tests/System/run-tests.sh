#!/bin/sh
# motiond's system tests, run inside the QEMU guest by motiond-system-test.service after boot
# (systemd as PID 1, the project installed by `make install`). Starts the uhid sensor hub, checks
# what the kernel, udev, systemd and motiond make of it and prints one line per check on the
# serial console: `SYSTEM-TEST name PASS|FAIL detail`, then `SYSTEM-TEST-END`, and powers off.
exec >/dev/ttyS0 2>&1
here=$(dirname "$0")
failed=0
result() { # name PASS|FAIL detail...
    n=$1; r=$2; shift 2
    echo "SYSTEM-TEST $n $r $*"
    [ "$r" = PASS ] || failed=1
}
diag() { echo "DIAG: $*"; }
wait_for() { # seconds command...: retries the command every 0.5 s
    t=$(( $1 * 2 )); shift
    while [ $t -gt 0 ]; do "$@" && return 0; sleep 0.5; t=$((t - 1)); done
    return 1
}
iio_by_name() { for d in /sys/bus/iio/devices/iio:device*; do [ "$(cat "$d/name" 2>/dev/null)" = "$1" ] && echo "$d" && return 0; done; return 1; }
have_all() { iio_by_name accel_3d >/dev/null && iio_by_name gyro_3d >/dev/null && iio_by_name magn_3d >/dev/null; }
feed() { echo "$*" >&3; }

echo "SYSTEM-TEST-BEGIN kernel $(uname -r), $(systemctl --version | head -1), uptime $(cut -d' ' -f1 /proc/uptime) s"
modprobe uhid
mkfifo /run/uhid-hub.cmd
"$here/uhid-hub" /run/uhid-hub.cmd 2>/run/uhid-hub.log &
feeder=$!
exec 3>/run/uhid-hub.cmd

# (a) the hub's three IIO devices appear (hid-sensor-hub and the drivers loaded by udev).
if wait_for 60 have_all; then
    result iio-devices PASS "$(for d in /sys/bus/iio/devices/iio:device*; do printf '%s=%s ' "${d##*/}" "$(cat $d/name)"; done)"
else
    result iio-devices FAIL "after 60 s: $(cat /sys/bus/iio/devices/*/name 2>/dev/null | tr '\n' ' ') modules: $(lsmod 2>/dev/null | awk 'NR>1{print $1}' | grep -E 'hid|iio' | tr '\n' ' ')"
    diag "feeder log:"; cat /run/uhid-hub.log; diag "dmesg:"; dmesg | tail -30
fi
accel=$(iio_by_name accel_3d); accel=${accel##*/}

# (b) udev's rule started motiond.service (nothing else wants it: the unit is not enabled and no
#     client has connected), and it runs as the user systemd-sysusers created.
udevadm settle -t 30
wants=$(udevadm info -q property -p /sys/bus/iio/devices/$accel 2>/dev/null | grep -E '^(SYSTEMD_WANTS|MOTIOND_SENSOR)=' | tr '\n' ' ')
enabled=$(systemctl is-enabled motiond.service 2>&1)
if wait_for 60 systemctl -q is-active motiond.service; then
    pid=$(systemctl show -p MainPID --value motiond.service)
    user=$(awk '/^Uid:/{print $2}' /proc/$pid/status)
    pwent=$(getent passwd motiond)
    # systemd records the device units whose SYSTEMD_WANTS pulled the service in.
    wantedby=$(systemctl show -p WantedBy --value motiond.service)
    if [ "$user" = "$(id -u motiond 2>/dev/null)" ] && echo "$wants" | grep -q 'SYSTEMD_WANTS=motiond.service' &&
       echo "$wantedby" | grep -q 'iio.*\.device'; then
        result udev-started-service PASS "active, pid $pid uid $user ($pwent), enabled: $enabled; $wants; WantedBy: $wantedby"
    else
        result udev-started-service FAIL "active, pid $pid uid $user, passwd: '$pwent', enabled: $enabled; udev: $wants; WantedBy: '$wantedby'"
    fi
else
    result udev-started-service FAIL "motiond.service $(systemctl is-active motiond.service) after 60 s; enabled: $enabled; udev: $wants"
fi

# The rule's permissions on the real device node and sysfs attributes.
node=$(stat -c '%G %a' /dev/$accel 2>&1)
attr=$(stat -c '%G %a' /sys/bus/iio/devices/$accel/in_accel_sampling_frequency 2>&1)
if [ "$node" = "motiond 660" ] && [ "${attr%% *}" = motiond ]; then
    result device-permissions PASS "/dev/$accel $node, in_accel_sampling_frequency $attr"
else
    result device-permissions FAIL "/dev/$accel: $node, in_accel_sampling_frequency: $attr"
fi

# The rule's RUN (chgrp/chmod of the sysfs attributes) ran on the real devices without errors.
udeverr=$(journalctl -q -o cat -u systemd-udevd.service | grep -i -E 'motiond|failed with exit|error' | head -5)
if [ -z "$udeverr" ]; then
    result udev-rule-run PASS "no errors from systemd-udevd ($(journalctl -q -u systemd-udevd.service | wc -l) journal lines)"
else
    result udev-rule-run FAIL "$(echo "$udeverr" | tr '\n' '|')"
fi

# (c) a client's subscription makes motiond read the accelerometer through the kernel buffer.
motionctl monitor --wait 10 --duration 12 accelerometer >/run/monitor-accel.log 2>&1 &
mon=$!
line=""
check_buffered() { line=$(motionctl status 2>&1 | grep -E '^ +accelerometer'); echo "$line" | grep -q buffered; }
if wait_for 20 check_buffered; then
    result accelerometer-buffered PASS "$(echo $line)"
else
    result accelerometer-buffered FAIL "status: $(echo $line)"
    motionctl status 2>&1
fi
wait_for 10 sh -c 'grep -c accelerometer /run/monitor-accel.log | grep -qv "^[01]$"'
sample=$(grep accelerometer /run/monitor-accel.log | tail -1)
now=$(cut -d' ' -f1 /proc/uptime)
# The feeder's pose: lying flat screen up (the hub reports z = -9.81 m/s^2), i.e. z = -1 G.
if echo "$sample" | awk '{for(i=1;i<=NF;i++){if($i=="x=")x=$(i+1);if($i=="y=")y=$(i+1);if($i=="z=")z=$(i+1)}} END{exit !(x*x<0.0025 && y*y<0.0025 && z>-1.05 && z<-0.95)}' &&
   # Timestamps are seconds since boot (the kernel's, with current_timestamp_clock boottime).
   echo "$sample $now" | awk '{d=$NF-$1; exit !(d>=0 && d<5)}'; then
    result accelerometer-values PASS "$(echo $sample) at uptime $now ($(grep -c accelerometer /run/monitor-accel.log) samples in the first seconds)"
else
    result accelerometer-values FAIL "last sample: '$(echo $sample)' at uptime $now; monitor: $(head -c 600 /run/monitor-accel.log)"
fi
freq=$(cat /sys/bus/iio/devices/$accel/in_accel_sampling_frequency 2>&1)
diag "accel_3d in_accel_sampling_frequency $freq, current_timestamp_clock $(cat /sys/bus/iio/devices/$accel/current_timestamp_clock 2>&1), buffer/enable $(cat /sys/bus/iio/devices/$accel/buffer/enable 2>&1), trigger $(cat /sys/bus/iio/devices/$accel/trigger/current_trigger 2>&1), hub: $(grep 'report 1:' /run/uhid-hub.log | tail -1)"
wait $mon 2>/dev/null

# (d) motiond's own lines are in the journal under its unit, as native entries only: nothing
#     from its standard error or syslog (libiio's warnings, libdispatch's complaints).
pid=$(systemctl show -p MainPID --value motiond.service)
n=$(journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _PID=$pid _TRANSPORT=journal 2>/dev/null | wc -l)
#     One line is known and left: libdispatch asks once for a higher priority than the
#     unprivileged service may take (EACCES, errno 13); any other, or a repeat, fails.
stray=$( (journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _TRANSPORT=stdout; journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _TRANSPORT=syslog) 2>/dev/null |
    sort | uniq -c | sort -rn | grep -v -E '^ *1 Failed to set thread priority for worker thread: pqc=0x[0-9a-f]+ errno=13$' | head -5 | tr '\n' '|')
if [ "$n" -gt 0 ] && [ -z "$stray" ]; then
    result journal PASS "$n native entries from motiond (pid $pid), none from its standard error or syslog; first: $(journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _PID=$pid | head -1)"
else
    result journal FAIL "$n native entries from pid $pid; standard-error or syslog lines: ${stray:-none}; journalctl -u motiond: $(journalctl -q -u motiond.service -o cat | tail -5 | tr '\n' '|')"
fi

# (e) turning the device: flat screen up, then upright (portrait), then on its side (landscape);
#     the orientation motiond reports follows, in this order.
motionctl monitor --wait 10 --duration 60 orientation >/run/monitor-orientation.log 2>&1 &
mon=$!
seen() { awk '{print $NF}' /run/monitor-orientation.log | tr '\n' ' '; }
wait_for 15 grep -q faceUp /run/monitor-orientation.log
feed accel 0 -9.80665 0
wait_for 20 grep -qw portrait /run/monitor-orientation.log
feed accel -9.80665 0 0
wait_for 20 grep -q landscape /run/monitor-orientation.log
order=$(seen)
if echo " $order" | grep -qE ' faceUp .*portrait .*landscape(Left|Right)'; then
    result orientation-landscape PASS "reported: $order"
else
    result orientation-landscape FAIL "expected faceUp, portrait, landscape in order; reported: '$order' $(grep -v orientation /run/monitor-orientation.log | head -c 300)"
fi
kill $mon 2>/dev/null; wait $mon 2>/dev/null

# (f) unplugging the hub: udev's remove events reach motiond, which marks the accelerometer
#     unavailable and keeps running; plugged in again, a client gets samples from the new device.
feed unplug
gone() { ! iio_by_name accel_3d >/dev/null; }
unavail() { line=$(motionctl status 2>&1 | grep -E '^ +accelerometer'); echo "$line" | grep -q unavailable; }
if wait_for 15 gone && wait_for 15 unavail && systemctl -q is-active motiond.service; then
    result unplug PASS "$(echo $line)"
else
    result unplug FAIL "iio: $(cat /sys/bus/iio/devices/*/name 2>/dev/null | tr '\n' ' '); motiond $(systemctl is-active motiond.service); status: $(echo $line)"
fi
feed replug
wait_for 30 have_all
motionctl monitor --wait 10 --duration 8 accelerometer >/run/monitor-replug.log 2>&1 &
mon=$!
if wait_for 20 check_buffered && wait_for 10 sh -c 'grep -c accelerometer /run/monitor-replug.log | grep -qv "^[01]$"'; then
    result replug PASS "$(echo $line); $(grep -c accelerometer /run/monitor-replug.log) samples; now $(iio_by_name accel_3d)"
else
    result replug FAIL "status: $(echo $line); monitor: $(head -c 400 /run/monitor-replug.log)"
fi
kill $mon 2>/dev/null; wait $mon 2>/dev/null

# (g) systemctl stop: motiond exits cleanly (SIGTERM) and leaves every buffer disabled and the
#     timestamp clocks as the kernel had them (realtime: motiond sets boottime while it reads).
systemctl stop motiond.service
result_of_stop="$(systemctl show -p Result --value motiond.service) status $(systemctl show -p ExecMainStatus --value motiond.service)"
left=""
for d in /sys/bus/iio/devices/iio:device*; do
    [ "$(cat "$d/buffer/enable" 2>/dev/null)" = 0 ] || left="$left ${d##*/}:buffer/enable=$(cat "$d/buffer/enable" 2>&1)"
    [ ! -e "$d/current_timestamp_clock" ] || [ "$(cat "$d/current_timestamp_clock")" = realtime ] ||
        left="$left ${d##*/}:current_timestamp_clock=$(cat "$d/current_timestamp_clock")"
done
if [ "$result_of_stop" = "success status 0" ] && [ -z "$left" ]; then
    result stop-restores PASS "stopped ($result_of_stop); every buffer disabled, timestamp clocks realtime"
else
    result stop-restores FAIL "stop: $result_of_stop; left behind:${left:- nothing}"
fi

# (h) socket activation: with the service stopped, motiond.socket still listens, and a client's
#     connection starts the service again.
if systemctl -q is-active motiond.socket && motionctl status --wait 20 >/run/status-activated.log 2>&1 &&
   systemctl -q is-active motiond.service; then
    result socket-activation PASS "motiond.socket active, a client's connection started motiond.service again ($(grep -E '^ +accelerometer' /run/status-activated.log | head -1 | tr -s ' '))"
else
    result socket-activation FAIL "socket $(systemctl is-active motiond.socket), service $(systemctl is-active motiond.service); motionctl: $(head -c 300 /run/status-activated.log)"
fi

# (i) the unit's sandboxing as systemd itself scores it, in place.
exposure=$(systemd-analyze security motiond.service 2>/dev/null | sed -n 's/.*Overall exposure level for motiond.service: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then
    result security PASS "systemd-analyze security motiond.service: exposure $exposure"
else
    result security FAIL "exposure '${exposure}' (at most 2.0): $(systemd-analyze security motiond.service 2>&1 | tail -3 | tr '\n' '|')"
fi

# Kernel command line motiond.test.verbose=1: the daemon's journal and unit state, always.
if grep -q 'motiond.test.verbose=1' /proc/cmdline; then
    diag "systemctl status motiond:"; systemctl status --no-pager -l motiond.service
    diag "journalctl -u motiond:"; journalctl --no-pager -q -o short-monotonic -u motiond.service
    diag "kernel:"; dmesg | grep -i -E 'hid|iio|uhid' | tail -30
    diag "systemd-udevd:"; journalctl --no-pager -q -o cat -u systemd-udevd.service | tail -30
fi

if [ $failed -ne 0 ]; then
    diag "systemctl status motiond:"; systemctl status --no-pager -l motiond.service
    diag "journalctl -u motiond (tail, without the tests' own client connections):"
    journalctl --no-pager -q -o short-monotonic -u motiond.service | grep -v -E 'client [0-9]+ (connected|disconnected)' | tail -60
    diag "feeder log (tail):"; tail -20 /run/uhid-hub.log
fi
echo "quit" >&3; exec 3>&-
wait $feeder 2>/dev/null
echo "SYSTEM-TEST-END uptime $(cut -d' ' -f1 /proc/uptime) s"
systemctl poweroff
