#!/bin/sh
# motiond's system tests, run inside the QEMU guest by motiond-system-test.service after boot
# (systemd as PID 1; the project's Debian package beside this script, installed first). Starts the uhid sensor hub, checks
# what the kernel, udev, systemd and motiond make of it and prints one line per check on the
# serial console: `SYSTEM-TEST name PASS|FAIL detail`, then `SYSTEM-TEST-END`, and powers off.
#
# Two guests run the checks side by side (scripts/system/check-system.sh boots both, one host
# core each), the kernel command line's motiond.test.part= saying which: `hub` follows the
# sensor hub through the daemon's life beside iio-sensor-proxy (readings, unplugs, the peer, the
# package swaps); `system` the machine around it (a Python client, the watchdog and restarts,
# suspend, stop, socket activation, sandboxing, a convertible, a board's I2C chips, removal);
# `boards` only the I2C chips (for working on them: MOTIOND_SYSTEM_PARTS=boards). Each part
# installs the package and starts the hub first, and reports those checks (and buffer-reads,
# for its own run).
exec >/dev/ttyS0 2>&1
here=$(dirname "$0")
failed=0
result() { # name PASS|FAIL detail...: the guest's uptime in seconds after the verdict
    n=$1; r=$2; shift 2
    echo "SYSTEM-TEST $n $r [$(cut -d' ' -f1 /proc/uptime) s] $*"
    [ "$r" = PASS ] || failed=1
}
diag() { echo "DIAG: $*"; }
part=$(sed -n 's/.*motiond\.test\.part=\([a-z]*\).*/\1/p' /proc/cmdline)
wait_for() { # seconds command...: retries the command every 0.5 s
    t=$(( $1 * 2 )); shift
    while [ $t -gt 0 ]; do "$@" && return 0; sleep 0.5; t=$((t - 1)); done
    return 1
}
iio_by_name() { for d in /sys/bus/iio/devices/iio:device*; do [ "$(cat "$d/name" 2>/dev/null)" = "$1" ] && echo "$d" && return 0; done; return 1; }
have_all() { iio_by_name accel_3d >/dev/null && iio_by_name gyro_3d >/dev/null && iio_by_name magn_3d >/dev/null && iio_by_name als >/dev/null; }
feed() { echo "$*" >&3; }
gone() { ! iio_by_name accel_3d >/dev/null; }
unavail() { line=$(motionctl status 2>&1 | grep -E '^ +accelerometer'); echo "$line" | grep -q unavailable; }
# motiond's journal lines since `seen` of them were there.
since() { journalctl -q -o cat -u motiond.service | tail -n +$((seen + 1)); }
# The sampling frequency attribute of every hub device, "name=value ..." (what stop must restore).
frequencies() { for n in accel_3d gyro_3d magn_3d; do d=$(iio_by_name $n) && printf '%s=%s ' $n "$(cat $d/in_*_sampling_frequency 2>&1)"; done; }
# Each thread of a process: "TID wake-ups preemptions runtime name". A wake-up is a voluntary
# context switch (the thread slept and something woke it: what costs a still device power); a
# preemption (an involuntary one) is no wake-up: the thread was running and another took the
# CPU, which happens the more often the slower the (emulated) CPU runs it. runtime: its time on
# a CPU, ns, from schedstat. A thread gone while listed is left out.
# One grep and one awk for all threads: a process per thread made the listing take seconds on
# a busy emulated CPU, and a window that ended late missed its client (the readers had stopped).
switches() { (cd /proc/$1/task 2>/dev/null && grep -s -H '' */status */schedstat */comm) | awk '
    { i = index($0, "/"); t = substr($0, 1, i - 1); r = substr($0, i + 1); j = index(r, ":"); f = substr(r, 1, j - 1); v = substr(r, j + 1)
      if (f == "comm") name[t] = v
      else if (f == "schedstat") { split(v, a, " "); ran[t] = a[1] }
      else if (v ~ /^voluntary_ctxt_switches:/) { sub(/^[^:]*:[ \t]*/, "", v); woke[t] = v }
      else if (v ~ /^nonvoluntary_ctxt_switches:/) { sub(/^[^:]*:[ \t]*/, "", v); pre[t] = v } }
    END { for (t in name) if ((t in woke) && (t in ran)) print t, woke[t], pre[t] + 0, ran[t], name[t] }'
}
ticks() { awk '{print $14 + $15}' /proc/$1/stat 2>/dev/null || echo 0; }
power() { # label pid seconds: wake-ups per second and CPU of a process over a window
    # A thread's counts go with it when it ends: those of threads that ended within the window
    # are missing (the figure is then a lower bound, and says so); a new thread counts whole.
    # cpu: the process's ticks (1/CLK_TCK s each, sampled); run: its threads' schedstat time
    # (to the nanosecond, a lower bound like the wake-ups when threads ended); preempted: its
    # threads' preemptions a second. A DIAG line on standard error (the console too; a caller
    # that captures the figure gets one line): each thread's wake-ups, preemptions and
    # microseconds on a CPU in the window.
    # The window is timed (boot clock) from the first listing's start to the second's end.
    read -r u0 _ < /proc/uptime; a=$(switches $2); c0=$(ticks $2)
    sleep $3
    b=$(switches $2); c1=$(ticks $2); read -r u1 _ < /proc/uptime
    printf '%s\n--\n%s\n' "$a" "$b" | awk -v c=$((c1 - c0)) -v u0=$u0 -v u1=$u1 -v hz=$(getconf CLK_TCK) -v label=$1 -v rss="$(awk '/^VmRSS/{print $2 $3}' /proc/$2/status)" '
        BEGIN { s = u1 - u0 }
        $1 == "--" { later = 1; next }
        !later { before[$1] = $2; pre[$1] = $3; ran[$1] = $4; next }
        { dt = $2 - (($1 in before) ? before[$1] : 0); dp = $3 - (($1 in pre) ? pre[$1] : 0); rt = $4 - (($1 in ran) ? ran[$1] : 0)
          d += dt; q += dp; r += rt; seen[$1] = 1; n++
          name = $5; for (i = 6; i <= NF; i++) name = name "_" $i
          each = each sprintf(" %s:%d+%d/%dus", name, dt, dp, rt / 1000) }
        END { for (t in before) if (!(t in seen)) ended++
              lb = ended ? ">=" : ""
              printf "SYSTEM-POWER %s wakeups/s=%s%.1f cpu=%.2f%% run=%s%.3f%% preempted/s=%s%.1f window=%ss threads=%d%s rss=%s\n", label, lb, d / s, 100 * c / hz / s,
                     lb, 100 * r / 1e9 / s, lb, q / s, s, n, ended ? " (" ended " ended in the window: their counts are not in the figures)" : "", rss
              printf "DIAG: %s per thread (wake-ups+preemptions/time on a CPU):%s\n", label, each > "/dev/stderr" }'
}
# Sample lines of a monitor log: timestamp first, the stream's name second.
stamps() { awk -v k="$2" '$2 == k {print $1}' "$1"; }
# Spacing of timestamps (one a line): "n=… median=… ms worst=… ms (largest distance from the median)".
spacing() { awk 'NR>1{printf "%.4f\n", ($1-p)*1000} {p=$1}' | sort -n |
    awk '{d[++n]=$1} END{if(n<3){print "n=" n; exit} m=d[int((n+1)/2)]; w=0; for(i=1;i<=n;i++){e=d[i]-m; if(e<0)e=-e; if(e>w)w=e}
         printf "n=%d median=%.2f ms worst=%.2f ms min=%.2f max=%.2f", n, m, w, d[1], d[n]}'; }

echo "SYSTEM-TEST-BEGIN kernel $(uname -r), $(systemctl --version | head -1), uptime $(cut -d' ' -f1 /proc/uptime) s"

# (0) the package, installed as a user would (apt; offline: what it depends on is in the root)
#     before any sensor exists: the socket listens, the service waits for one; its manual
#     pages and completions are where man and bash look.
#     python3-motiond (the Python client library) beside it.
deb=$(ls "$here"/motiond_*.deb | head -1)
aptsaid=$(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" "$here"/python3-motiond_*.deb 2>&1); aptstatus=$?
packaged=$(dpkg-query -W -f '${source:Upstream-Version} ${Status}' motiond 2>&1)
service=$(systemctl is-active motiond.service 2>&1); socket=$(systemctl is-active motiond.socket 2>&1)
manpage=$(MANWIDTH=100 man -P cat motiond 2>&1 | head -1 | tr -s ' ')
completes=$(bash -c '. /usr/share/bash-completion/completions/motionctl; complete -p motionctl' 2>&1)
if [ $aptstatus = 0 ] && [ "$packaged" = "$(motiond --version) install ok installed" ] && [ "$service" = inactive ] &&
   [ "$socket" = active ] && echo "$manpage" | grep -q '^MOTIOND(8) .* MOTIOND(8)$' && echo "$completes" | grep -q motionctl &&
   [ "$(motiond-rotate --version)" = "$(motiond --version)" ]; then
    result package-install PASS "apt installed $(basename "$deb") and $(basename "$here"/python3-motiond_*.deb) ($packaged, $(du -sk /usr/bin/motiond /usr/bin/motionctl | awk '{s+=$1} END{print s}') KiB of binaries); before a sensor: motiond.service $service, motiond.socket $socket; man motiond: $manpage; $completes"
else
    result package-install FAIL "apt ($aptstatus): $(echo "$aptsaid" | tail -4 | tr '\n' '|'); dpkg: $packaged; service $service, socket $socket; man: '$manpage'; completion: '$completes'"
fi
# Debian's iio-sensor-proxy is installed (udev would start it with the hub): held back until the
# coexistence checks, so motiond is first tested alone, as after the README's switch.
systemctl mask --runtime iio-sensor-proxy.service >/dev/null 2>&1
modprobe uhid
# /dev/uinput, for the tablet-mode switch: its node then comes with a uevent, and the udev rule
# gives it to group motiond (on a full system the module loads on the static node's first open).
modprobe uinput
# Event nodes (/dev/input/eventN), which the tablet-mode check reads the switch from.
modprobe evdev
mkfifo /run/uhid-hub.cmd
"$here/uhid-hub" /run/uhid-hub.cmd 2>/run/uhid-hub.log &
feeder=$!
exec 3>/run/uhid-hub.cmd

# (a) the hub's four IIO devices appear (hid-sensor-hub and the drivers loaded by udev), the
#     light sensor reading the hub's 100 lux as raw × scale.
if wait_for 60 have_all; then
    als=$(iio_by_name als)
    raw=$(cat $als/in_illuminance_raw 2>&1); scale=$(cat $als/in_illuminance_scale 2>&1)
    if awk -v r="$raw" -v s="$scale" 'BEGIN{exit !(r * s > 99.99 && r * s < 100.01)}'; then
        result iio-devices PASS "$(for d in /sys/bus/iio/devices/iio:device*; do printf '%s=%s ' "${d##*/}" "$(cat $d/name)"; done); als: in_illuminance_raw $raw × in_illuminance_scale $scale"
    else
        result iio-devices FAIL "als: in_illuminance_raw '$raw', in_illuminance_scale '$scale' (the hub plays 100 lux); $(ls $als | tr '\n' ' ')"
    fi
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

# Every buffered read of a guest's run found data: no reader spun on empty reads or waited out
# its timeout (a reader left non-blocking by the one before it did, the tier found). Each part
# ends with it.
buffer_reads() {
    empty=$(journalctl -q -o cat -u motiond.service | grep -E 'no data (from|in) the buffer' )
    if [ -z "$empty" ]; then
        result buffer-reads PASS "no empty or timed-out buffer read logged in the whole run"
    else
        result buffer-reads FAIL "$(echo "$empty" | wc -l) lines such as: $(echo "$empty" | head -2 | tr '\n' '|')"
    fi
}

# The hub part (not indented): (c) to (h), (k) to (k3).
if [ "$part" = hub ]; then

# (c) a client's subscription makes motiond read the accelerometer through the kernel buffer.
motionctl monitor --wait 10 --duration 12 accelerometer >/run/monitor-accel.log 2>&1 &
mon=$!
line=""
check_buffered() { line=$(motionctl status 2>&1 | grep -E '^ +accelerometer'); echo "$line" | grep -q buffered; }
if wait_for 20 check_buffered; then
    result accelerometer-buffered PASS "$(echo $line)"
else
    result accelerometer-buffered FAIL "status: $(echo $line)"
    motionctl status 2>&1; journalctl -q -o short-monotonic -u motiond.service | grep -v -E 'client [0-9]+ (connected|disconnected)' | head -40
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

# (c2) the magnetometer: magn_3d has no timestamp channel while the hub does not stamp, so motiond
#      stamps its scans on arrival (which jitters by tens of ms here), smoothed over the known
#      period: the spacing fusion sees is the hub's 20 ms, the stamps on the boot clock.
magn=$(iio_by_name magn_3d)
motionctl monitor --wait 10 --duration 5 --interval 0.02 magnetometer >/run/monitor-magn.log 2>&1
now=$(cut -d' ' -f1 /proc/uptime)
# The first second is left out: the line through the arrivals starts from the first few.
sp=$(stamps /run/monitor-magn.log magnetometer | tail -n +50 | spacing)
last=$(stamps /run/monitor-magn.log magnetometer | tail -1)
channel=$(ls $magn/scan_elements 2>/dev/null | grep -c '^in_timestamp_en$')
mline=$(motionctl status 2>&1 | grep -E '^ +magnetometer')
if [ "$channel" = 0 ] && echo "$sp" | awk '{for(i=1;i<=NF;i++){split($i,a,"=");v[a[1]]=a[2]}} END{exit !(v["n"]>=100 && v["median"]>19 && v["median"]<21 && v["worst"]<=2.5 && v["min"]>0)}' &&
   echo "$last $now" | awk '{d=$2-$1; exit !(d>=0 && d<3)}'; then
    result magnetometer-timestamps PASS "no timestamp channel; spacing after the first second: $sp; last stamp $last at uptime $now"
else
    result magnetometer-timestamps FAIL "timestamp channel: $channel; spacing: $sp; last stamp $last at uptime $now; $(echo $mline); log: $(head -c 300 /run/monitor-magn.log)"
fi
diag "magn_3d arrivals: $(stamps /run/monitor-magn.log magnetometer | head -50 | spacing) in the first second"

# (d) motiond's own lines are in the journal under its unit, as native entries only: nothing
#     from its standard error or syslog (libiio's warnings, libdispatch's complaints).
pid=$(systemctl show -p MainPID --value motiond.service)
n=$(journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _PID=$pid _TRANSPORT=journal 2>/dev/null | wc -l)
#     One line is known and left: libdispatch asks once for a higher priority than the
#     unprivileged service may take (EACCES, errno 13); any other, or a repeat, fails.
stray=$( (journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _TRANSPORT=stdout; journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _TRANSPORT=syslog) 2>/dev/null |
    sort | uniq -c | sort -rn | grep -v -E '^ *1 Failed to set thread priority for worker thread: pqc=0x[0-9a-f]+ errno=13$' | head -5 | tr '\n' '|')
# Its structured fields: the lines about the accelerometer are found by sensor and device.
fields=$(journalctl -q -o cat _SYSTEMD_UNIT=motiond.service MOTIOND_SENSOR=accelerometer MOTIOND_DEVICE=$accel 2>/dev/null | head -1)
if [ "$n" -gt 0 ] && [ -z "$stray" ] && [ -n "$fields" ]; then
    result journal PASS "$n native entries from motiond (pid $pid), none from its standard error or syslog; first: $(journalctl -q -o cat _SYSTEMD_UNIT=motiond.service _PID=$pid | head -1); MOTIOND_SENSOR=accelerometer MOTIOND_DEVICE=$accel: $fields"
else
    result journal FAIL "$n native entries from pid $pid; standard-error or syslog lines: ${stray:-none}; by MOTIOND_SENSOR/MOTIOND_DEVICE: '$fields'; journalctl -u motiond: $(journalctl -q -u motiond.service -o cat | tail -5 | tr '\n' '|')"
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
# Lying still with an orientation client: the accelerometer read through its buffer at the rest
# rate (a batch of scans per wake-up).
pid=$(systemctl show -p MainPID --value motiond.service)
sleep 3
power motiond-orientation-buffered-at-rest $pid 10
# At rest the hub reports at 20 Hz (every 50 ms; a quarter of the rest interval, at most 50 ms),
# not at the detectors' 50 Hz (docs/SENSORS.md "Rest rate"); the swing of (e2) brings 20 ms back.
hub_rest=$(grep 'report 1:' /run/uhid-hub.log | tail -1); hub_lines=$(grep -c 'report 1:' /run/uhid-hub.log)
diag "threads (wake-ups+preemptions): $(switches $pid | awk '{printf "%s:%s+%s ", $5, $2, $3}')"
diag "motiond at rest: $(motionctl status 2>&1 | grep -E '^ +accelerometer' | tr -s ' ')"
kill $mon 2>/dev/null; wait $mon 2>/dev/null

# (e2) a shake: held on its side, swung along y at 4 Hz with 2.5 G for a second (a step every
#      25 ms), then still again.
motionctl monitor --wait 10 --duration 30 shake >/run/monitor-shake.log 2>&1 &
mon=$!
sleep 3
awk 'BEGIN { for (i = 0; i < 40; i++) printf "accel -9.80665 %.3f 0\nsleep 0.025\n", 2.5 * 9.80665 * sin(2 * 3.14159265 * 4 * i * 0.025) }' >&3
feed accel -9.80665 0 0
if wait_for 15 grep -q 'ended' /run/monitor-shake.log; then
    result shake PASS "$(grep -v '^#' /run/monitor-shake.log | tr -s ' ' | tr '\n' '|')"
else
    result shake FAIL "no shake ended: $(head -c 400 /run/monitor-shake.log | tr '\n' '|')"
    motionctl status 2>&1; grep -E 'sleep|accel' /run/uhid-hub.log | tail -12
fi
hub_moving=$(grep 'report 1:' /run/uhid-hub.log | tail -n +$((hub_lines + 1)) | grep -m1 'interval 20 ms')
if echo "$hub_rest" | grep -q 'interval 50 ms' && [ -n "$hub_moving" ]; then
    result hub-rate-at-rest PASS "at rest: $hub_rest; moving again: $hub_moving"
else
    result hub-rate-at-rest FAIL "at rest: '$hub_rest'; moving again: '$hub_moving'; $(grep 'report 1:' /run/uhid-hub.log | tail -4 | tr '\n' '|')"
fi
kill $mon 2>/dev/null; wait $mon 2>/dev/null

# (f) unplugging the hub: udev's remove events reach motiond, which marks the accelerometer
#     unavailable and keeps running; plugged in again, a client gets samples from the new device.
feed unplug
if wait_for 15 gone && wait_for 15 unavail && systemctl -q is-active motiond.service; then
    result unplug PASS "$(echo $line)"
else
    result unplug FAIL "iio: $(cat /sys/bus/iio/devices/*/name 2>/dev/null | tr '\n' ' '); motiond $(systemctl is-active motiond.service); status: $(echo $line)"
fi
# The hub comes back stamping its reports on its own clock (HID 0x0529), 50 ppm fast. udevd holds
# its events for a while (as when it is busy): a client asking meanwhile makes motiond look, find
# the new devices not yet processed (no udev database entry, their nodes still root-only, no hwdb
# properties) and wait for udev's add rather than fall back to polling.
seen=$(journalctl -q -o cat -u motiond.service | wc -l)
udevadm control --stop-exec-queue
feed stamp 50
feed replug
wait_for 30 have_all
motionctl monitor --wait 20 --duration 60 accelerometer >/run/monitor-replug.log 2>&1 &
mon=$!
wait_for 10 sh -c "journalctl -q -o cat -u motiond.service | tail -n +$((seen + 1)) | grep -q 'udev has not processed it yet'"
sleep 2
udevadm control --start-exec-queue
waited=$(since | grep 'udev has not processed it yet' | head -1)
fallback=$(since | grep -E 'polling accelerometer through sysfs instead|Permission denied' | head -1)
if [ -n "$waited" ] && [ -z "$fallback" ] && wait_for 20 check_buffered && wait_for 10 sh -c 'grep -c accelerometer /run/monitor-replug.log | grep -qv "^[01]$"'; then
    result replug PASS "$(echo $line); $(grep -c accelerometer /run/monitor-replug.log) samples; now $(iio_by_name accel_3d); while udev held its events: $waited"
else
    result replug FAIL "status: $(echo $line); motiond while udev held its events: '$waited'; fallback: '$fallback'; monitor: $(head -c 400 /run/monitor-replug.log)"
fi
kill $mon 2>/dev/null; wait $mon 2>/dev/null

# (f2) the replugged hub stamps its reports (HID 0x0529): the kernel then stamps the scans with
#      the hub's clock (milliseconds since it was plugged in) and ignores current_timestamp_clock.
#      motiond lays them onto the boot clock: near the uptime, increasing, the hub's spacing kept.
motionctl monitor --wait 10 --duration 5 --interval 0.02 accelerometer >/run/monitor-stamped.log 2>&1
now=$(cut -d' ' -f1 /proc/uptime)
sp=$(stamps /run/monitor-stamped.log accelerometer | tail -n +50 | spacing)
last=$(stamps /run/monitor-stamped.log accelerometer | tail -1)
said=$(journalctl -q -o cat -u motiond.service | grep "stamps its scans on the sensor hub's own clock" | tail -1)
if grep -q 'hub timestamps' /run/uhid-hub.log && [ -n "$said" ] &&
   echo "$sp" | awk '{for(i=1;i<=NF;i++){split($i,a,"=");v[a[1]]=a[2]}} END{exit !(v["n"]>=100 && v["median"]>19 && v["median"]<21 && v["min"]>0)}' &&
   echo "$last $now" | awk '{d=$2-$1; exit !(d>=0 && d<3)}'; then
    result hub-timestamps PASS "last stamp $last at uptime $now; spacing: $sp; motiond: $said"
else
    result hub-timestamps FAIL "last stamp $last at uptime $now; spacing: $sp; motiond said: '$said'; hub: $(grep created /run/uhid-hub.log | tail -1); log: $(head -c 300 /run/monitor-stamped.log)"
fi

# (f3) unplugged without udevd (as in an initramfs or a container): no remove event reaches
#      motiond, so the streaming client's read must notice that the device is gone: within its
#      1-s read timeout, the 0.5-s status poll and this emulated guest's slowness (3.1 s seen
#      once; a udev-less motiond that never notices fails the 15-s waits).
motionctl monitor --wait 10 --duration 60 --interval 0.02 accelerometer >/run/monitor-noudev.log 2>&1 &
mon=$!
wait_for 20 check_buffered
wait_for 10 sh -c 'grep -c accelerometer /run/monitor-noudev.log | grep -qv "^[01]$"'
systemctl stop systemd-udevd.service systemd-udevd-kernel.socket systemd-udevd-control.socket
t0=$(cut -d' ' -f1 /proc/uptime)
feed unplug
if wait_for 15 gone && wait_for 15 unavail; then
    t1=$(cut -d' ' -f1 /proc/uptime)
    noticed=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b - a}')
else
    noticed=never
fi
why=$(journalctl -q -o cat -u motiond.service | grep 'lost accelerometer' | tail -1)
if [ "$noticed" != never ] && awk -v t=$noticed 'BEGIN{exit !(t < 5)}' && echo "$why" | grep -qv 'udev removed it'; then
    result unplug-without-udev PASS "noticed ${noticed} s after the unplug (status polled every 0.5 s): $why"
else
    result unplug-without-udev FAIL "noticed: $noticed s; motiond: '$why'; status: $(echo $line)"
fi
# udevd comes back holding its events at first: the hub's new devices are found by motiond's
# rescans before udev processes them, through udev's database entries of the devices it never saw
# go (stale: they look processed) or none (motiond waits, as above). Either way, once udev has
# processed them, motiond reads the accelerometer through its buffer again.
systemctl start systemd-udevd.service
udevadm control --stop-exec-queue
seen=$(journalctl -q -o cat -u motiond.service | wc -l)
before=$(grep -c accelerometer /run/monitor-noudev.log)
feed replug
wait_for 30 have_all
# A second client at another rate changes the request, so motiond looks at once (its own retries
# back off since the unplug).
motionctl monitor --wait 5 --duration 2 --interval 0.01 accelerometer >/dev/null 2>&1
sleep 1
udevadm control --start-exec-queue
udevadm settle -t 30
# The same client, never restarted, gets the new device's samples.
if wait_for 20 sh -c "[ \$(grep -c accelerometer /run/monitor-noudev.log) -gt $((before + 10)) ]" && wait_for 10 check_buffered; then
    result replug-streaming PASS "$before samples before the unplug, $(grep -c accelerometer /run/monitor-noudev.log) now, same client; $(echo $line); motiond: $(since | grep -E 'udev has (not )?processed' | head -2 | tr '\n' '|')"
else
    result replug-streaming FAIL "$before samples before, $(grep -c accelerometer /run/monitor-noudev.log) after the replug; status $(echo $line); $(tail -3 /run/monitor-noudev.log | tr '\n' '|'); motiond: $(since | grep -v 'samples' | tail -8 | tr '\n' '|')"
fi
kill $mon 2>/dev/null; wait $mon 2>/dev/null

# The poses monitor-sensor is shown, as iio-sensor-proxy and then motiond serve it: flat, then
# upright, on its left side, on its right side, upright again; with each, a light level (lux),
# the last the hub's 100 it started with.
levels="12.5 320 0.5 45 100"
poses() {
    n=1
    for p in "0 0 -9.80665" "0 -9.80665 0" "-9.80665 0 0" "9.80665 0 0" "0 -9.80665 0"; do
        feed accel $p; feed light $(echo $levels | cut -d' ' -f$n); n=$((n + 1)); sleep 4
    done
}
changes() { grep -o 'Accelerometer orientation changed: .*' "$1" | sed 's/.*: //' | tr '\n' ' '; }
# The light levels of a monitor-sensor log with their unit ("12.500000 (lux) …"), repeats folded,
# from the first of the poses' levels on: before it a client sees the start level or 0, as its
# claim is answered before or after the first reading and another client's claim read it first.
lights() {
    sed -n -e 's/^=== Has ambient light sensor (value: \([^,]*\), unit: \([^)]*\)).*/\1 (\2)/p' \
           -e 's/^ *Light changed: \(.*\)$/\1/p' "$1" |
        awk -v first=${levels%% *} '$1 == first {on = 1} on && $0 != p {print; p = $0}' | tr '\n' ' '
}
# What monitor-sensor must show of the levels, and Qt (one decimal, QLightReading is in lux).
expected_lights=$(printf '%f (lux) ' $levels)
expected_qtlights=$(printf '%.1f ' $levels)

# (h) coexistence: iio-sensor-proxy (Debian's, installed in the guest) starts, enables the
#     accelerometer's buffer and is asked for the orientation; a motiond
#     client then gets the accelerometer all the same, polled through sysfs, and says why, while
#     iio-sensor-proxy keeps following the device.
feed accel 0 0 -9.80665
systemctl unmask --runtime iio-sensor-proxy.service >/dev/null 2>&1
systemctl start iio-sensor-proxy.service
peerpid=$(systemctl show -p MainPID --value iio-sensor-proxy.service)
# Debian's monitor-sensor comes with iio-sensor-proxy: a copy stays for when the
# motiond-sensor-proxy package has replaced both (k).
cp /usr/bin/monitor-sensor /run/debian-monitor-sensor
stdbuf -oL monitor-sensor >/run/monitor-sensor-peer.log 2>&1 &
peermon=$!
# A Qt application through QtSensors' iio-sensor-proxy backend, following the same poses.
python3 "$here/qt-sensors.py" 120 >/run/qt-peer.log 2>&1 &
peerqt=$!
accdir=$(iio_by_name accel_3d)
if wait_for 20 grep -q '^1$' $accdir/buffer/enable; then
    # At rest, claimed, on the same device motiond reads below: the peer's power beside motiond's.
    power iio-sensor-proxy-claimed-at-rest $peerpid 15
    seen=$(journalctl -q -o cat -u motiond.service | wc -l)
    motionctl monitor --wait 10 --duration 40 --interval 0.05 accelerometer >/run/monitor-coexist.log 2>&1 &
    mon=$!
    wait_for 15 sh -c 'grep -c accelerometer /run/monitor-coexist.log | grep -qv "^[01]$"'
    line=$(motionctl status 2>&1 | grep -E '^ +accelerometer')
    poses
    why=$(journalctl -q -o cat -u motiond.service | tail -n +$((seen + 1)) | grep -E 'reading accelerometer from .*polling|polling accelerometer through sysfs instead' | tail -1)
    peer=$(changes /run/monitor-sensor-peer.log)
    peerlights=$(lights /run/monitor-sensor-peer.log)
    # motiond's samples followed the last pose (upright: y = -1 G) while the peer did too.
    last=$(grep accelerometer /run/monitor-coexist.log | tail -1)
    if echo "$line" | grep -q polling && echo "$why" | grep -q 'another program' &&
       echo "$peer" | grep -q . && systemctl -q is-active iio-sensor-proxy.service &&
       echo "$last" | awk '{for(i=1;i<=NF;i++){if($i=="y=")y=$(i+1)}} END{exit !(y>-1.05 && y<-0.95)}'; then
        result coexistence PASS "motiond: $(echo $line); said: $why; its last sample: $(echo $last); iio-sensor-proxy (pid $peerpid) meanwhile: $peer"
    else
        result coexistence FAIL "motiond: $(echo $line); said: '$why'; last sample: '$(echo $last)'; iio-sensor-proxy $(systemctl is-active iio-sensor-proxy.service): '$peer'; $(head -c 300 /run/monitor-sensor-peer.log | tr '\n' '|')"
    fi
    kill $mon 2>/dev/null; wait $mon 2>/dev/null
else
    result coexistence FAIL "iio-sensor-proxy $(systemctl is-active iio-sensor-proxy.service) never enabled the buffer of $accdir; monitor-sensor: $(head -c 300 /run/monitor-sensor-peer.log | tr '\n' '|')"
    diag "iio-sensor-proxy:"; journalctl -q -o cat -u iio-sensor-proxy.service | grep -v -E 'No new data|Accel read from' | tail -25
    diag "udev: $(udevadm info -q property -p $accdir | grep IIO_SENSOR_PROXY_TYPE); triggers: $(cat /sys/bus/iio/devices/trigger*/name | tr '\n' ' ')"
fi
# The desktop's own claim at rest: the Qt application alone, whose QOrientationSensor and
# QLightSensor claim the accelerometer and the light, as a desktop's screen rotation and
# brightness do. monitor-sensor (above) claims the compass too, which no desktop at rest does.
kill $peermon 2>/dev/null; wait $peermon 2>/dev/null
sleep 3
power iio-sensor-proxy-desktop-claim-at-rest $peerpid 15
kill $peerqt 2>/dev/null; wait $peerqt 2>/dev/null
# From here on motiond is alone, as after the switch in the README ("Replacing iio-sensor-proxy").
systemctl mask --runtime --now iio-sensor-proxy.service >/dev/null 2>&1
# iio-sensor-proxy leaves its buffer enabled when it stops, and motiond, finding it so, keeps
# polling that device; the hub is plugged in anew, as the reboot after the switch would.
diag "after iio-sensor-proxy stopped: accel_3d buffer/enable $(cat $(iio_by_name accel_3d)/buffer/enable)"
feed unplug
wait_for 15 gone
feed replug
wait_for 30 have_all
udevadm settle -t 30

# (k) the package swap, as a desktop user makes it: iio-sensor-proxy runs again, followed by
#     Debian's monitor-sensor (the desktop's client), and apt installs motiond-sensor-proxy over
#     it (Conflicts/Replaces: apt removes iio-sensor-proxy). motiond restarts with its D-Bus face
#     and owns net.hadess.SensorProxy on the real system bus with the package's policy; the same
#     client, never restarted, sees the service go and come back and claims again; motiond's
#     socket service goes on; monitor-sensor is now motiond's.
feed accel 0 0 -9.80665
systemctl unmask --runtime iio-sensor-proxy.service >/dev/null 2>&1
systemctl start iio-sensor-proxy.service
stdbuf -oL /run/debian-monitor-sensor >/run/monitor-sensor-swap.log 2>&1 &
swapmon=$!
wait_for 20 grep -q '=== Has accelerometer' /run/monitor-sensor-swap.log
oldpid=$(systemctl show -p MainPID --value motiond.service)
aptsaid=$(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$here"/motiond-sensor-proxy_*.deb 2>&1); aptstatus=$?
pid=$(systemctl show -p MainPID --value motiond.service)
owner() { busctl --system call org.freedesktop.DBus / org.freedesktop.DBus GetConnectionUnixProcessID s net.hadess.SensorProxy 2>/dev/null | awk '{print $2}'; }
owned() { [ "$(owner)" = "$pid" ]; }
reclaimed() { sed -n '/iio-sensor-proxy vanished/,$p' /run/monitor-sensor-swap.log | grep -q '=== Has accelerometer'; }
states="motiond-sensor-proxy:$(dpkg-query -W -f '${Status}' motiond-sensor-proxy 2>&1 | awk '{print $NF}') iio-sensor-proxy:$(dpkg-query -W -f '${Status}' iio-sensor-proxy 2>&1 | awk '{print $NF}')"
# Its control fields and files; the motiond package has none of the face's.
fields=$(dpkg-query -W -f 'Provides: ${Provides}; Conflicts: ${Conflicts}; Replaces: ${Replaces}; Depends: ${Depends}' motiond-sensor-proxy 2>&1)
files=$(dpkg -L motiond-sensor-proxy 2>/dev/null | grep -cxE '/usr/bin/monitor-sensor|/usr/share/man/man1/monitor-sensor.1.gz|/lib/systemd/system/motiond.service.d/sensor-proxy.conf|/usr/share/dbus-1/system.d/motiond-sensor-proxy.conf|/usr/share/polkit-1/actions/motiond.net.hadess.SensorProxy.policy')
theface=$(dpkg -L motiond | grep -cE 'dbus-1|polkit-1|monitor-sensor|service\.d')
if [ $aptstatus = 0 ] && [ "$states" = "motiond-sensor-proxy:installed iio-sensor-proxy:config-files" ] && wait_for 20 owned &&
   [ "$fields" = "Provides: iio-sensor-proxy; Conflicts: iio-sensor-proxy; Replaces: iio-sensor-proxy; Depends: motiond (= $(dpkg-query -W -f '${Version}' motiond))" ] &&
   [ "$files" = 5 ] && [ "$theface" = 0 ] &&
   [ "$pid" != "$oldpid" ] && wait_for 20 reclaimed && systemctl -q is-active motiond.socket &&
   [ "$(readlink -f /usr/bin/monitor-sensor)" = /usr/bin/motionctl ] && ! systemctl -q is-active iio-sensor-proxy.service; then
    result package-swap PASS "apt: $(echo "$aptsaid" | grep -E '^(Removing|Setting up)' | tr '\n' '|'); $states; $fields; its 5 files; motiond pid $oldpid -> $pid owns net.hadess.SensorProxy; Debian's monitor-sensor (same process): $(sed -n '/iio-sensor-proxy vanished/,$p' /run/monitor-sensor-swap.log | head -3 | tr '\n' '|'); monitor-sensor -> $(readlink -f /usr/bin/monitor-sensor)"
else
    result package-swap FAIL "apt ($aptstatus): $(echo "$aptsaid" | tail -6 | tr '\n' '|'); $states; $fields; $files of its 5 files; $theface of the face's in motiond; motiond pid $oldpid -> $pid, name owner '$(owner)'; iio-sensor-proxy $(systemctl is-active iio-sensor-proxy.service); socket $(systemctl is-active motiond.socket); monitor-sensor -> $(readlink -f /usr/bin/monitor-sensor); client: $(tail -5 /run/monitor-sensor-swap.log | tr '\n' '|'); motiond: $(journalctl -q -o cat _PID=$pid | tail -5 | tr '\n' '|')"
fi

# (k1) [dbus] sensor-proxy in the configuration and a reload: the same process, the face kept.
printf '\n[dbus]\nsensor-proxy = true\n' >> /etc/motiond/motiond.toml
systemctl reload motiond.service
reloaded() { journalctl -q -o cat _PID=$pid | grep -q 'configuration reloaded'; }
if wait_for 10 reloaded && wait_for 10 owned &&
   [ "$(systemctl show -p MainPID --value motiond.service)" = "$pid" ]; then
    result reload PASS "systemctl reload: same pid $pid, $(journalctl -q -o cat _PID=$pid | grep 'configuration reloaded' | tail -1); net.hadess.SensorProxy owned by pid $(owner)"
else
    result reload FAIL "pid $pid -> $(systemctl show -p MainPID --value motiond.service); reloaded: $(journalctl -q -o cat _PID=$pid | grep -i reload | tail -2 | tr '\n' '|'); name owner: '$(owner)'"
fi
# (k2) the desktop's clients on motiond, as on iio-sensor-proxy in (h): monitor-sensor (now
#     motiond's own) and Debian's beside it (the client of the swap), and the Qt application.
feed accel 0 0 -9.80665
sleep 1
swapped=$(wc -l < /run/monitor-sensor-swap.log)
stdbuf -oL monitor-sensor >/run/monitor-sensor-motiond.log 2>&1 &
ours=$!
python3 "$here/qt-sensors.py" 120 >/run/qt-motiond.log 2>&1 &
oursqt=$!
# The screen-rotation helper (a MotionClient program) follows the same poses, through a command
# backend instead of a compositor.
motiond-rotate --backend command --command "true {orientation} {rotation}" --debounce 0.5 >/run/rotate.log 2>&1 &
rot=$!
wait_for 10 grep -q 'Has accelerometer' /run/monitor-sensor-motiond.log
# The Qt application started too (Python and Qt take seconds to load in this emulated guest:
# once longer than the first pose, whose light level it then missed): its first light reading.
wait_for 30 grep -q '^light ' /run/qt-motiond.log
poses
mine=$(changes /run/monitor-sensor-motiond.log)
minelights=$(lights /run/monitor-sensor-motiond.log)
tail -n +$((swapped + 1)) /run/monitor-sensor-swap.log >/run/monitor-sensor-debian-motiond.log
theirs=$(changes /run/monitor-sensor-debian-motiond.log)
theirlights=$(lights /run/monitor-sensor-debian-motiond.log)
if [ -n "$mine" ] && [ "$mine" = "$peer" ] && [ "$theirs" = "$peer" ] &&
   [ "$minelights" = "$expected_lights" ] && [ "$peerlights" = "$expected_lights" ] && [ "$theirlights" = "$expected_lights" ]; then
    result dbus-monitor-sensor PASS "monitor-sensor (motiond's) from motiond: $mine(the same as Debian's from iio-sensor-proxy, and Debian's from motiond); light: $minelights(the hub's levels; the same from both daemons, to both clients); $(grep -E '=== Has (accelerometer|ambient light)' /run/monitor-sensor-motiond.log | head -2 | tr '\n' ' ')"
else
    result dbus-monitor-sensor FAIL "motiond's monitor-sensor from motiond: '$mine' light '$minelights'; Debian's from motiond: '$theirs' light '$theirlights'; Debian's from iio-sensor-proxy: '$peer' light '$peerlights'; the hub's levels: '$expected_lights'; $(head -c 400 /run/monitor-sensor-motiond.log | tr '\n' '|')"
fi
# Qt's readings: the orientations in order (repeats folded; a leading Undefined left out: it
# depends on whether the claim is answered before the first reading, as iio-sensor-proxy 3.0
# does, or with it), a sensor that did not start, and apart (the two sensors' readings
# interleave as the daemons' timers fall) the light readings as lights() takes monitor-sensor's.
qtseen() { awk '$1 == "orientation" && $2 != p {print $2; p = $2} / did not start/ {print}' "$1" | sed '/^Undefined$/{1d}' | tr '\n' ' '; }
qtlights() { awk -v first=${levels%% *} '$1 == "light" && $2 == first {on = 1} on && $1 == "light" && $2 != p {print $2; p = $2}' "$1" | tr '\n' ' '; }
kill $oursqt 2>/dev/null; wait $oursqt 2>/dev/null
qtpeer=$(qtseen /run/qt-peer.log); qtours=$(qtseen /run/qt-motiond.log)
qtpeerlights=$(qtlights /run/qt-peer.log); qtourlights=$(qtlights /run/qt-motiond.log)
if echo "$qtours" | grep -q 'TopUp .*Up .*Up .*TopUp' && [ "$qtours" = "$qtpeer" ] &&
   [ "$qtourlights" = "$expected_qtlights" ] && [ "$qtpeerlights" = "$expected_qtlights" ]; then
    result qt-sensors PASS "QtSensors (iio-sensor-proxy backend) from motiond: orientation $qtours; light (lux) $qtourlights(both the same as from iio-sensor-proxy)"
else
    result qt-sensors FAIL "QtSensors from motiond: '$qtours' light '$qtourlights'; from iio-sensor-proxy: '$qtpeer' light '$qtpeerlights'; the hub's levels: '$expected_qtlights'; $(head -c 300 /run/qt-motiond.log | tr '\n' '|'); peer: $(head -c 300 /run/qt-peer.log | tr '\n' '|')"
fi
# The buffer iio-sensor-proxy left enabled when apt removed it: taken over by the motiond that
# replaced it (nobody else owns net.hadess.SensorProxy), not polled beside it.
accline=$(motionctl status 2>&1 | grep -E '^ +accelerometer')
tookover=$(journalctl -q -o cat _PID=$pid | grep 'left enabled by iio-sensor-proxy, which has stopped' | head -1)
if echo "$accline" | grep -q buffered && [ -n "$tookover" ]; then
    result swap-buffer-taken-over PASS "motiond: $(echo $accline); said: $tookover"
else
    result swap-buffer-taken-over FAIL "motiond: '$(echo $accline)'; said: '$tookover'; $(journalctl -q -o cat _PID=$pid | grep -iE 'buffer|polling' | head -4 | tr '\n' '|')"
fi
rotated=$(grep -o 'rotating to [A-Za-z]*' /run/rotate.log | awk '{print $3}' | tr '\n' ' ')
if echo " $rotated" | grep -qE ' portrait .*landscape(Left|Right) .*landscape(Left|Right) .*portrait '; then
    result rotate-helper PASS "motiond-rotate: $rotated"
else
    result rotate-helper FAIL "motiond-rotate: '$rotated'; $(head -c 400 /run/rotate.log | tr '\n' '|')"
fi
kill $rot 2>/dev/null; wait $rot 2>/dev/null
# monitor-sensor's claim, the device still (the same window as the peer's): it claims the
# compass too, whose heading motiond fuses from the accelerometer, gyroscope and magnetometer,
# all three read at the rest rate while the device lies still (the peer passes on the hub's
# own heading). The clients of the checks above have just left: the code that served them is
# given back at most 10 s after the last release (RestRate), before the window, not inside it.
sleep 11
power motiond-dbus-claimed-at-rest $pid 15
restdiag() {
    diag "motiond at rest: $(motionctl status 2>&1 | grep -E '^ +(accelerometer|gyroscope|magnetometer|light)|^subscriptions|^clients' | tr -s ' ' | tr '\n' '|')"
    diag "threads (wake-ups+preemptions): $(switches $pid | awk '{printf "%s:%s+%s ", $5, $2, $3}')"
    # What its resident memory is: code and other file pages, or its own (the guest keeps
    # 15-17 MiB where the host gives the code pages back).
    diag "memory: $(grep -E '^(Rss|Pss_Anon|Pss_File|Shared_Clean|Private_Clean|Private_Dirty):' /proc/$pid/smaps_rollup | tr -s ' ' | tr '\n' '|') heap in use: $(motionctl status 2>&1 | awk '/heap in use/{print $4, $5}')"
    diag "largest resident mappings: $(awk '/^[0-9a-f]+-[0-9a-f]+ /{m=$2" "$6} /^Rss:/{print $2, m}' /proc/$pid/smaps | sort -rn | head -6 | tr '\n' '|')"
}
restdiag
kill $ours $swapmon 2>/dev/null; wait $ours $swapmon 2>/dev/null
# The desktop's own claim at rest, as the peer's above: the Qt application alone (accelerometer
# and light), the accelerometer's buffer the one iio-sensor-proxy left enabled, taken over.
python3 "$here/qt-sensors.py" 90 >/run/qt-rest.log 2>&1 &
restqt=$!
wait_for 40 grep -q '^light ' /run/qt-rest.log
# Long enough for the Dispatch workers that served the claims to retire (5 s idle): a thread
# that ends inside the window takes its wake-ups with it, and the figure is only a lower bound.
# And for the code pages the claim faulted in to be given back (RestRate: two readings after
# the last change, at most 10 s after the last release), as before the compass window above:
# the release itself (a worker reading /proc/self/smaps) is a one-time cost of the claim, not
# of rest. The pages the rest loop faults back after it still count (RSS before the window).
sleep 11
diag "motiond before the desktop claim's window: $(grep VmRSS /proc/$pid/status | tr -s ' ')"
power motiond-dbus-desktop-claim-at-rest $pid 15
restdiag
kill $restqt 2>/dev/null; wait $restqt 2>/dev/null

# (k3) and back: apt installs Debian's iio-sensor-proxy again (its .deb beside this script: the
#      guest is offline), which removes motiond-sensor-proxy: iio-sensor-proxy owns the name,
#      motiond restarts without the face and its socket service still answers.
#      Its unit is static: udev starts it, through the rule apt just installed (motiond's
#      dpkg trigger on that rule adds the sensors again).
oldpid=$(systemctl show -p MainPID --value motiond.service)
starts() { journalctl -q -o cat -u iio-sensor-proxy.service | grep -c 'Starting'; }
started=$(starts)
aptsaid=$(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$here"/iio-sensor-proxy_*.deb 2>&1); aptstatus=$?
states="motiond-sensor-proxy:$(dpkg-query -W -f '${Status}' motiond-sensor-proxy 2>&1 | awk '{print $NF}') iio-sensor-proxy:$(dpkg-query -W -f '${Status}' iio-sensor-proxy 2>&1 | awk '{print $NF}')"
peerowns() { p=$(systemctl show -p MainPID --value iio-sensor-proxy.service); [ "$p" != 0 ] && [ "$(owner)" = "$p" ]; }
pid=$(systemctl show -p MainPID --value motiond.service)
# (config-files: dpkg keeps a removed package that has a postrm until it is purged.)
if [ $aptstatus = 0 ] && echo "$states" | grep -qxE 'motiond-sensor-proxy:(config-files|not-installed) iio-sensor-proxy:installed' &&
   wait_for 30 peerowns && [ "$pid" != "$oldpid" ] && systemctl -q is-active motiond.socket && motionctl status --wait 20 >/run/status-swapped-back.log 2>&1 &&
   [ ! -e /lib/systemd/system/motiond.service.d/sensor-proxy.conf ] && [ ! -L /usr/bin/monitor-sensor ]; then
    result package-swap-back PASS "apt: $(echo "$aptsaid" | grep -E '^(Removing|Setting up|Processing triggers for motiond)' | tr '\n' '|'); $states; net.hadess.SensorProxy owned by iio-sensor-proxy (pid $(owner), started by udev: $(( $(starts) - started )) start after apt); motiond pid $oldpid -> $pid, socket service: $(grep -E '^ +accelerometer' /run/status-swapped-back.log | head -1 | tr -s ' ')"
else
    result package-swap-back FAIL "apt ($aptstatus): $(echo "$aptsaid" | tail -6 | tr '\n' '|'); $states; name owner '$(owner)', iio-sensor-proxy $(systemctl is-active iio-sensor-proxy.service), $(( $(starts) - started )) starts after apt: $(journalctl -q -o cat -u iio-sensor-proxy.service | grep -v -E 'Accel read from|No new data' | tail -4 | tr '\n' '|'); accel_3d: $(udevadm info -q property -p $(iio_by_name accel_3d) | grep SYSTEMD_WANTS); motiond pid $oldpid -> $pid, socket $(systemctl is-active motiond.socket); motionctl: $(head -c 300 /run/status-swapped-back.log); drop-in: $(ls /lib/systemd/system/motiond.service.d 2>&1)"
fi
buffer_reads
fi

# The system part (not indented): (i), (j), (l), (g), socket activation, sandboxing, (m), (n).
if [ "$part" = system ]; then

# (i) device motion for a Python client (the example python3-motiond installs, a user of its package), at 100 Hz on the
#     buffered path; meanwhile the device lies still with a gyroscope bias the engine learns and
#     saves (the state the watchdog restart below must keep).
feed accel 0 0 -9.80665
feed gyro 0.01 -0.015 0.005
pid=$(systemctl show -p MainPID --value motiond.service)
python3 /usr/share/doc/python3-motiond/examples/motion_client.py --interval 0.01 --duration 12 >/run/python.log 2>&1 &
py=$!
sleep 4
power motiond-devicemotion-100Hz $pid 6
diag "motiond at 100 Hz: $(motionctl status 2>&1 | grep -E '^ +(accelerometer|gyroscope|magnetometer)' | tr -s ' ' | tr '\n' '|')"
wait $py; pystatus=$?
bias=$(motionctl status 2>&1 | grep 'gyroscope bias' | tr -s ' ')
learned() { # status line: the bias the hub plays, within 0.001 rad/s
    echo "$1" | sed 's/.*(\(.*\)).*/\1/' | awk '{exit !($1-0.01<0.001 && $1-0.01>-0.001 && $2+0.015<0.001 && $2+0.015>-0.001 && $3-0.005<0.001 && $3-0.005>-0.001)}'
}
n=$(grep -c 'attitude roll=' /run/python.log)
if [ $pystatus = 0 ] && [ "$n" -gt 500 ] && grep -q 'orientation faceUp' /run/python.log && learned "$bias"; then
    result python-device-motion PASS "motion_client.py: $n attitude values in 12 s, $(grep -c orientation /run/python.log) orientation; engine: $bias"
else
    result python-device-motion FAIL "exit $pystatus, $n attitude values; engine: '$bias'; $(head -c 300 /run/python.log | tr '\n' '|')"
fi
# The state is saved as it changes, at most every 30 s ([state] save-interval): a client keeps
# the engine running until the file holds the bias just learned (what a crash may lose is the
# last 30 s at most).
motionctl monitor --wait 10 --duration 60 --interval 0.02 deviceMotion >/dev/null 2>&1 &
mon=$!
savedbias() { grep -A4 gyroscopeBias /var/lib/motiond/engine.json 2>/dev/null | tr -d ' \n' | sed 's/.*"x":\([-0-9.e]*\),"y":\([-0-9.e]*\),"z":\([-0-9.e]*\).*/\1 \2 \3/'; }
saved_learned() { learned "($(savedbias))"; }
wait_for 45 saved_learned
saved=$(savedbias)
kill $mon 2>/dev/null; wait $mon 2>/dev/null
feed gyro 0 0 0

# (j) the watchdog: a stopped daemon stops pinging, systemd kills it (WatchdogSec=30) and starts
#     it again; the learned bias comes back from the state directory. Then a plain restart.
pid=$(systemctl show -p MainPID --value motiond.service)
t0=$(cut -d' ' -f1 /proc/uptime)
kill -STOP $pid
restarted() { p=$(systemctl show -p MainPID --value motiond.service); [ "$p" != "$pid" ] && [ "$p" != 0 ] && systemctl -q is-active motiond.service; }
if wait_for 90 restarted; then
    new=$(systemctl show -p MainPID --value motiond.service)
    took=$(awk -v a=$t0 -v b=$(cut -d' ' -f1 /proc/uptime) 'BEGIN{printf "%.0f", b - a}')
    timeout=$(journalctl -q -o cat -u motiond.service | grep -i 'watchdog timeout' | tail -1)
    restored=$(journalctl -q -o cat _PID=$new | grep 'engine state restored' | head -1)
    bias=$(motionctl status --wait 10 2>&1 | grep 'gyroscope bias' | tr -s ' ')
    if [ -n "$timeout" ] && [ -n "$restored" ] && learned "$bias"; then
        result watchdog-restart PASS "pid $pid stopped; $took s later pid $new ($timeout); $restored; $bias"
    else
        result watchdog-restart FAIL "new pid $new after $took s; systemd: '$timeout'; '$restored'; '$bias'; saved before: $saved"
    fi
else
    result watchdog-restart FAIL "pid $pid stopped, no new motiond in 90 s: $(systemctl status --no-pager motiond.service 2>&1 | head -5 | tr '\n' '|')"
    kill -CONT $pid 2>/dev/null
fi
systemctl restart motiond.service
new=$(systemctl show -p MainPID --value motiond.service)
restored=$(journalctl -q -o cat _PID=$new | grep 'engine state restored' | head -1)
bias=$(motionctl status --wait 10 2>&1 | grep 'gyroscope bias' | tr -s ' ')
if [ -n "$restored" ] && learned "$bias"; then
    result restart-state PASS "systemctl restart: pid $new; $restored; $bias"
else
    result restart-state FAIL "pid $new: '$restored'; '$bias'"
fi

# The sampling frequencies as the kernel left them: systemctl stop must put back whatever
# motiond writes from now on.
freq_before=$(frequencies)
# Buffers enabled now are not motiond's (none: iio-sensor-proxy, which leaves its buffer enabled
# when it stops, runs in the other part).
enabled_before=$(for d in /sys/bus/iio/devices/iio:device*; do [ "$(cat $d/buffer/enable 2>/dev/null)" = 1 ] && printf '%s ' ${d##*/}; done)

# (l) system suspend (S3, through systemd; the host wakes the guest after about 3 s): the same
#     motiond and the same client go on, the samples' boot-clock stamps jump over the sleep, and
#     the attitude restarts from gravity: the device, turned upright as the machine went to
#     sleep (too late for the fusion to follow before it), is shown upright (within 5 degrees)
#     at most 2 s after the first sample after the sleep. The readers' reads that waited across
#     it are no fault (buffer-reads below: none logged).
feed accel 0 0 -9.80665
pid=$(systemctl show -p MainPID --value motiond.service)
motionctl monitor --wait 10 --duration 600 --interval 0.05 deviceMotion >/run/monitor-suspend.log 2>&1 &
mon=$!
wait_for 15 sh -c '[ $(grep -c gravity= /run/monitor-suspend.log) -gt 40 ]'
asleep() { python3 -c 'import time; print(time.clock_gettime(time.CLOCK_BOOTTIME) - time.clock_gettime(time.CLOCK_MONOTONIC))'; }
slept0=$(asleep)
seen=$(journalctl -q -o cat -u motiond.service | wc -l)
feed accel 0 -9.80665 0
# The last value before the sleep (the newest followed by a gap of more than a second), and
# the values after it. The client's log says when the machine is back: polling the journal for
# systemd-suspend's "returned from sleep" took about 300 s once here (a slow journalctl each poll).
gap() { grep gravity= /run/monitor-suspend.log | awk 'p != "" && $1 - p > 1 {print p; exit} {p = $1}'; }
after() { awk -v t=$last '$1 > t + 1 && /gravity=/' /run/monitor-suspend.log; }
afterwards() { last=$(gap); [ -n "$last" ] && [ "$(after | wc -l)" -gt 50 ]; }
systemctl suspend
wait_for 120 afterwards
slept=$(awk -v a=$slept0 -v b=$(asleep) 'BEGIN{printf "%.1f", b - a}')
first=$(after | head -1 | awk '{print $1}')
# The newest value at most 2 s after the first: its gravity, (x y z) in G.
within=$(after | awk -v t=$first '$1 <= t + 2' | tail -1)
gravity=$(echo "$within" | sed 's/.*gravity=(\([^)]*\)).*/\1/')
restarted=$(since | grep 'attitude restarted' | head -1)
if [ "$(systemctl show -p MainPID --value motiond.service)" = "$pid" ] && kill -0 $mon 2>/dev/null &&
   awk -v s=$slept 'BEGIN{exit !(s > 0)}' && [ -n "$first" ] && awk -v a=$last -v b=$first -v s=$slept 'BEGIN{exit !(b - a >= s)}' &&
   echo "$gravity" | awk '{exit !($2 < -0.9962)}' && [ -n "$restarted" ]; then
    result suspend-resume PASS "asleep ${slept} s (boot clock minus monotonic); same motiond (pid $pid) and client; last stamp before $last, first after $first; upright 2 s later: gravity ($gravity) G; motiond: $restarted"
else
    result suspend-resume FAIL "asleep '${slept}' s; motiond pid $(systemctl show -p MainPID --value motiond.service) (was $pid), client $(kill -0 $mon 2>/dev/null && echo running || echo gone); last stamp before $last, first after '$first'; gravity 2 s after: '$gravity'; restarted: '$restarted'; $(journalctl -q -o cat -u systemd-suspend.service | tail -2 | tr '\n' '|'); motiond: $(since | grep -v client | tail -5 | tr '\n' '|')"
fi
kill $mon 2>/dev/null; wait $mon 2>/dev/null
feed accel 0 0 -9.80665

# Every sensor read once more (north-referenced device motion needs all three), for the restore.
motionctl monitor --wait 10 --duration 3 --interval 0.01 --frame xMagneticNorthZVertical deviceMotion >/dev/null 2>&1

buffer_reads

# (g) systemctl stop: motiond exits cleanly (SIGTERM) and leaves every buffer disabled, the
#     timestamp clocks as the kernel had them (realtime: motiond sets boottime while it reads) and
#     the sampling frequencies as it found them.
systemctl stop motiond.service
result_of_stop="$(systemctl show -p Result --value motiond.service) status $(systemctl show -p ExecMainStatus --value motiond.service)"
left=""
for d in /sys/bus/iio/devices/iio:device*; do
    [ "$(cat "$d/buffer/enable" 2>/dev/null)" = 0 ] || echo " $enabled_before" | grep -q " ${d##*/} " ||
        left="$left ${d##*/}:buffer/enable=$(cat "$d/buffer/enable" 2>&1)"
    [ ! -e "$d/current_timestamp_clock" ] || [ "$(cat "$d/current_timestamp_clock")" = realtime ] ||
        left="$left ${d##*/}:current_timestamp_clock=$(cat "$d/current_timestamp_clock")"
done
freq_after=$(frequencies)
[ "$freq_after" = "$freq_before" ] || left="$left sampling frequencies $freq_after (were $freq_before)"
if [ "$result_of_stop" = "success status 0" ] && [ -z "$left" ]; then
    result stop-restores PASS "stopped ($result_of_stop); every buffer motiond used disabled (enabled before it: ${enabled_before:-none}), timestamp clocks realtime, sampling frequencies back: $freq_after; $(journalctl -q -o cat -u motiond.service | grep -c '^restored ') frequencies restored"
else
    result stop-restores FAIL "stop: $result_of_stop; left behind:${left:- nothing}"
fi

# (h) socket activation: with the service stopped, motiond.socket still listens, and a client's
#     connection starts the service again. The hello comes once motiond has started, which in
#     this emulated guest once took over motionctl's default 5 s: up to 30 s are allowed.
if systemctl -q is-active motiond.socket && motionctl status --wait 20 --reply-timeout 30 >/run/status-activated.log 2>&1 &&
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

# (m) a convertible: the hub comes back with a second accelerometer, in its base (a local udev
#     rule says so, ACCEL_LOCATION=base, as the hwdb does for real machines), and is folded from
#     closed through laptop and flat to a stand and a tablet. motiond's posture stream follows,
#     and its tablet-mode switch (a uinput device: the guest has no switch of its own, so
#     tablet-mode-switch = "auto" offers one) is off in laptop and flat, on in stand and tablet.
cat > /run/base-location.sh <<'EOS'
#!/bin/sh
# ACCEL_LOCATION=base for the hub's last accelerometer (its fourth collection: created last, the
# highest platform device id of the hub's accelerometers).
cell=$(basename "$(dirname "/sys$1")"); id=${cell%.auto}; id=${id##*.}
for sibling in "$(dirname "$(dirname "/sys$1")")"/HID-SENSOR-200073.*.auto; do
    other=$(basename "$sibling"); other=${other%.auto}; other=${other##*.}
    [ "$other" -gt "$id" ] && exit 0
done
echo ACCEL_LOCATION=base
EOS
chmod +x /run/base-location.sh
mkdir -p /run/udev/rules.d
echo 'ACTION!="remove", SUBSYSTEM=="iio", KERNEL=="iio:device*", ATTR{name}=="accel_3d", IMPORT{program}="/run/base-location.sh %p"' > /run/udev/rules.d/61-motiond-test-base.rules
udevadm control --reload
g=9.80665
# Closed on a table: the display faces down; the base reads what the display reads.
feed accel 0 0 $g
feed base 0 0 $g
feed convertible on
feed unplug
wait_for 15 gone
feed replug
if wait_for 60 sh -c '[ $(for d in /sys/bus/iio/devices/iio:device*; do cat $d/name; done 2>/dev/null | grep -c accel_3d) = 2 ]'; then
    replugged="the hub came back with two accelerometers"
else
    replugged="after 60 s the hub has: $(cat /sys/bus/iio/devices/iio:device*/name 2>/dev/null | tr '\n' ' '); feeder: $(tail -2 /run/uhid-hub.log | tr '\n' '|'); kernel: $(dmesg | grep -iE 'hid|iio|sensor' | tail -3 | tr '\n' '|')"
fi
udevadm settle -t 30
based=$(for d in /sys/bus/iio/devices/iio:device*; do udevadm info -q property -p $d 2>/dev/null | grep -q '^ACCEL_LOCATION=base' && echo ${d##*/}; done | tr '\n' ' ')
seen=$(journalctl -q -o cat -u motiond.service | wc -l)
# (The monitor outlasts the poses' waits together, 95 s at most.)
motionctl monitor --wait 10 --duration 120 --interval 0.1 posture >/run/monitor-convertible.log 2>&1 &
mon=$!
# SW_TABLET_MODE of motiond's switch, read from its evdev node (EVIOCGSW): 1, 0, or none.
tabletmode() {
    python3 - <<'EOP'
import array, fcntl, glob, os
for name in glob.glob("/sys/class/input/event*/device/name"):
    if open(name).read().strip() == "motiond tablet mode switch":
        node = "/dev/input/" + name.split("/")[4]
        fd = os.open(node, os.O_RDONLY)
        state = array.array("B", [0] * 8)
        fcntl.ioctl(fd, (2 << 30) | (len(state) << 16) | (ord("E") << 8) | 0x1b, state)
        print(state[0] >> 1 & 1)
        break
else:
    print("none")
EOP
}
wait_for 15 grep -q "posture closed\$" /run/monitor-convertible.log
# libinput, as the desktop's compositor uses it, watching every input device of seat0 (motiond's
# switch was created at the first posture): its SWITCH_TOGGLE events for tablet mode.
switch_exists() { [ "$(tabletmode)" != none ]; }
wait_for 10 switch_exists
stdbuf -oL libinput debug-events >/run/libinput-events.log 2>&1 &
libinput=$!
wait_for 10 grep -q 'motiond tablet mode switch' /run/libinput-events.log
switches=""; angles=""
# laptop at 100 degrees, flat, then the base folded behind the upright display: a stand at
# 270 degrees (base keyboard down), a tablet at 360 (both read what the upright display reads),
# and opened back into a laptop.
for pose in "laptop 0 -0.98481 -0.17365 0 0 1" "flat 0 0 -1 0 0 1" "stand 0 -1 0 0 0 -1" "tablet 0 -1 0 0 -1 0" \
            "laptop 0 -0.98481 -0.17365 0 0 1"; do
    set -- $pose
    feed accel $(awk -v g=$g -v x=$2 -v y=$3 -v z=$4 'BEGIN{print x*g, y*g, z*g}')
    feed base $(awk -v g=$g -v x=$5 -v y=$6 -v z=$7 'BEGIN{print x*g, y*g, z*g}')
    wait_for 10 sh -c "[ \"\$(grep -o 'posture [a-z]*' /run/monitor-convertible.log | tail -1)\" = 'posture $1' ]"
    switches="$switches$1=$(tabletmode) "
    # The hinge angle motiond has at the end of each pose (a pull: it changes no rate).
    angles="$angles$1: $(motionctl get hinge 2>&1 | tr -s ' \n' ' ' | cut -c1-70)| "
done
kill $mon 2>/dev/null; wait $mon 2>/dev/null
wait_for 5 sh -c '[ $(grep -c "switch tablet-mode state" /run/libinput-events.log) -ge 2 ]'
kill -INT $libinput 2>/dev/null; wait $libinput 2>/dev/null
toggles=$(grep -o 'switch tablet-mode state [01]' /run/libinput-events.log | awk '{print $4}' | tr '\n' ' ')
# The stops in order; between two, the hub's halves are fed one after the other, so at the rest
# rate a transient posture may show (flat → laptop → stand, as a real fold through it would).
postures=$(grep -o 'posture [a-z]*' /run/monitor-convertible.log | awk '{print $2}' | tr '\n' ' ')
created=$(journalctl -q -o cat -u motiond.service | grep -E 'tablet-mode switch' | grep -v subscribed | tail -2 | tr '\n' '|')
if [ -n "$based" ] && echo "$postures" | awk '{n = split("closed laptop flat stand tablet", want, " "); i = 1
    for (w = 1; w <= NF && i <= n; w++) if ($w == want[i]) i++; exit !(i > n)}'; then
    result convertible-posture PASS "base accelerometer $based(udev ACCEL_LOCATION=base); postures: $postures; hinge at each pose's end: $angles; $(motiond --list-sensors 2>/dev/null | grep 'hinge angle' | tr -s ' ')"
else
    # The cause first (check-system repeats only a failure's first 400 characters at the end).
    result convertible-posture FAIL "base: '$based' ($replugged); postures: '$postures'; status: $(motionctl status 2>&1 | grep -E '^ +(accelerometer|baseAccel)' | tr -s ' ' | tr '\n' '|'); motiond: $(since | grep -v client | tail -6 | tr '\n' '|'); hinge at each pose's end: $angles"
fi
uinput=$(stat -c '%G %a' /dev/uinput 2>&1)
if [ "$switches" = "laptop=0 flat=0 stand=1 tablet=1 laptop=0 " ] && [ "$toggles" = "1 0 " ] && [ "$uinput" = "motiond 660" ]; then
    result tablet-mode-switch PASS "SW_TABLET_MODE through the postures: $switches; libinput debug-events: tablet-mode state $toggles; /dev/uinput $uinput; motiond: $created"
else
    result tablet-mode-switch FAIL "switch states: '$switches'; libinput tablet-mode states '$toggles' ($(grep -E 'SWITCH|tablet mode' /run/libinput-events.log | head -4 | tr -s ' \t' ' ' | tr '\n' '|')); /dev/uinput '$uinput'; motiond: '$created'; /proc/bus/input/devices: $(grep -A1 'motiond tablet' /proc/bus/input/devices | tr '\n' '|')"
fi

fi

# (o) a board: IMUs and a magnetometer on I2C with their real drivers (inv_mpu6050, bmi160,
#     ak8975) and no interrupt line, as a hobby board wires them. i2c-stub stands for the bus: a
#     register file at each chip's address, written through i2c-dev (i2cset) with what the chip
#     would hold — its identity for the probe, then a pose in the data registers (the byte order
#     each chip uses) — and `new_device` binds the real driver (`delete_device` unplugs it).
#     The hub is unplugged first: the board's chips are motiond's only sensors. Checked: the
#     devices found under the drivers' names, the scales the drivers report, sysfs's raw values
#     equal to the registers, and motiond's values equal to raw × scale to one LSB; then the
#     IMU unplugged and another one plugged in its place, read the same way.
#     Run in the system part's guest, or alone (motiond.test.part=boards). Each chip's registers:
#     Tests/System/I2C-CHIPS.md.
if [ "$part" = system ] || [ "$part" = boards ]; then
feed unplug
wait_for 15 gone
modprobe i2c-dev
modprobe i2c-stub chip_addr=0x68,0x69,0x6a,0x0c,0x1e
stub=$(for b in /sys/bus/i2c/devices/i2c-*; do [ "$(cat $b/name 2>/dev/null)" = "SMBus stub driver" ] && echo ${b##*/i2c-} && break; done)
# Registers from FIRST on, one I2C block write (a driver never reads half a pose); forced, as
# the bound driver holds the address.
regs() { addr=$1; shift; i2cset -f -y "$stub" "$addr" "$@" i; }
# A signed 16-bit value as two bytes, least (le16) or most (be16) significant first.
le16() { printf '0x%02x 0x%02x' $(( $1 & 255 )) $(( ($1 >> 8) & 255 )); }
be16() { printf '0x%02x 0x%02x' $(( ($1 >> 8) & 255 )) $(( $1 & 255 )); }
bind() { echo "$1 $2" > /sys/bus/i2c/devices/i2c-$stub/new_device; }
unbind() { echo "$1" > /sys/bus/i2c/devices/i2c-$stub/delete_device; }
# The chips' identities (AK8975: WIA 0x48, fuse ROM sensitivity 0x80 = 0.3 µT per LSB, its
# status registers saying "data ready, no error"; MPU-6050: WHO_AM_I 0x68; BMI160: CHIP_ID 0xd1
# and the power-on accelerometer and gyroscope configuration and ranges, ±2 g and ±2000 °/s).
regs 0x0c 0x00 0x48; regs 0x0c 0x10 0x80 0x80 0x80; regs 0x0c 0x02 0x01; regs 0x0c 0x09 0x00
regs 0x68 0x75 0x68
regs 0x69 0x00 0xd1; regs 0x69 0x40 0x28 0x03 0x28 0x00
# Poses, raw: accelerometer x y z, gyroscope x y z, magnetometer x y z (counts).
mpu_pose() { regs 0x68 0x3b $(be16 $1) $(be16 $2) $(be16 $3) $(be16 -3920) $(be16 $4) $(be16 $5) $(be16 $6); }
bmi_pose() { regs 0x69 0x0c $(le16 $4) $(le16 $5) $(le16 $6) $(le16 $1) $(le16 $2) $(le16 $3); }
ak_field() { regs 0x0c 0x03 $(le16 $1) $(le16 $2) $(le16 $3); }
# motiond's last accelerometer, gyroscope and magnetometer values against the chips' sysfs
# (raw equal to the pose's counts) and the datasheets: each scale the driver reports is the
# datasheet's sensitivity at the range the driver set, and each value = raw × that within one
# count (so a scale motiond misread would not pass by being read the same way here), through
# the kernel's identity as motiond reads it on these chips, which report the specific force
# (docs/SENSORS.md, "Axes"): the accelerometer's z negated, the gyroscope's and magnetometer's
# x and y.
board_values() { # log accel-device gyro-device magn-device "ax ay az gx gy gz mx my mz" "accel anglvel magn scales"
    python3 - "$@" <<'EOP'
import json, sys
log, imu, gyr, magn, counts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], [int(c) for c in sys.argv[5].split()]
datasheet = [float(s) for s in sys.argv[6].split()]
if len(datasheet) != 3: sys.exit(f"bad: three datasheet sensitivities wanted, got {sys.argv[5]!r}")
def attr(dev, name):
    with open(f"/sys/bus/iio/devices/{dev}/{name}") as f: return f.read().strip()
def scale(dev, kind, axis):
    try: return float(attr(dev, f"in_{kind}_{axis}_scale"))
    except OSError: return float(attr(dev, f"in_{kind}_scale"))
last = {}
for line in open(log):
    try: m = json.loads(line)
    except ValueError: continue
    last[m.get("type")] = m
streams = [("accelerometer", "acceleration", imu, "accel", 1 / 9.80665, (1, 1, -1)),
           ("gyro", "rotationRate", gyr, "anglvel", 1.0, (-1, -1, 1)), ("magnetometer", "magneticField", magn, "magn", 100.0, (-1, -1, 1))]
bad, said = [], []
for (stream, key, dev, kind, unit, signs), base, sensitivity in zip(streams, (0, 3, 6), datasheet):
    if stream not in last: bad.append(f"no {stream} value"); continue
    for i, axis in enumerate("xyz"):
        raw, s = int(attr(dev, f"in_{kind}_{axis}_raw")), scale(dev, kind, axis)
        if abs(s - sensitivity) > 1e-9: bad.append(f"{dev} in_{kind}_{axis} scale {s:g}, the datasheet's {sensitivity:g}")
        got, want = last[stream][key][axis], raw * sensitivity * unit * signs[i]
        if raw != counts[base + i]: bad.append(f"{dev} in_{kind}_{axis}_raw {raw}, registers {counts[base + i]}")
        if abs(got - want) > sensitivity * abs(unit): bad.append(f"{stream} {axis} {got:.6f}, raw × {sensitivity:g} = {want:.6f}")
    said.append(f"{stream} ({', '.join('%.4f' % last[stream][key][a] for a in 'xyz')}) = raw × {sensitivity:g}")
print(("ok " if not bad else "bad ") + "; ".join(bad + said))
EOP
}
# A pose sequence (the checks (o3)): each line "name seconds ax ay az gx gy gz expected-orientation gx gy gz" (gravity
# expected, G); marks in /run/poses-NAME.marks ("boot-time name expected..."), the client's
# accelerometer and orientation in /run/poses-NAME.log.
pose_run() { # name pose-function lines...
    name=$1; posefn=$2; shift 2
    : > /run/poses-$name.marks
    motionctl monitor --json --wait 10 --duration 60 --interval 0.05 accelerometer orientation >/run/poses-$name.log 2>&1 &
    m=$!
    wait_for 10 grep -q acceleration /run/poses-$name.log
    for line in "$@"; do
        set -- $line
        $posefn $3 $4 $5 $6 $7 $8
        sleep $2
        echo "$(awk '{print $1}' /proc/uptime) $1 $9 ${10} ${11} ${12}" >> /run/poses-$name.marks
    done
    kill $m 2>/dev/null; wait $m 2>/dev/null
}
# Each pose held: the last accelerometer value before its mark within 5° of the gravity
# expected, the last orientation reported before it the expected one. (Not the fused gravity: a
# pose written at once, with the gyroscope still, is a turn the gyroscope denies, which the
# fusion takes seconds to believe; the turn below is the motion check.)
pose_verdict() { # name
    python3 - /run/poses-$1.log /run/poses-$1.marks <<'EOP'
import json, math, sys
samples, orientations = [], []
for line in open(sys.argv[1]):
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("type") == "accelerometer": samples.append((m["timestamp"], m["acceleration"]))
    elif m.get("type") == "orientation": orientations.append((m["timestamp"], m["orientation"]))
bad, said = [], []
for line in open(sys.argv[2]):
    t, name, orientation, *g = line.split()
    t, want = float(t), [float(v) for v in g]
    before = [s for s in samples if s[0] <= t]
    if not before: bad.append(f"{name}: no accelerometer value"); continue
    got = before[-1][1]; v = [got["x"], got["y"], got["z"]]
    cos = sum(a * b for a, b in zip(v, want)) / (math.hypot(*v) * math.hypot(*want))
    angle = math.degrees(math.acos(max(-1, min(1, cos))))
    seen = [o for o in orientations if o[0] <= t]
    now = seen[-1][1] if seen else "none"
    said.append(f"{name}: acceleration ({v[0]:+.2f} {v[1]:+.2f} {v[2]:+.2f}) {angle:.1f}° off, {now}")
    if angle > 5: bad.append(f"{name}: acceleration {angle:.1f}° off ({v[0]:+.2f} {v[1]:+.2f} {v[2]:+.2f}, gravity expected {want})")
    if now != orientation: bad.append(f"{name}: orientation {now}, expected {orientation}")
print(("ok " if not bad else "bad " + "; ".join(bad) + " | ") + "; ".join(said))
EOP
}
# A quarter turn, from face up (lying) to upright, about the device's x at 45 °/s: the
# accelerometer's specific force and the gyroscope's +0.785 rad/s (737 counts at 0.001065 or
# 0.001064724 rad/s), written in one block every 20 ms from the clock (i2c-dev, SMBus I2C block
# write), each write's time and angle logged; a client's deviceMotion meanwhile. The fused
# gravity against the written angle's (0, -sin θ, -cos θ), from 0.3 s into the turn to 1 s after
# it: the worst angle between them, and the rotation rate mid-turn. The chip's y and the
# gyroscope's x carry the signs the matrix in force asks: with the board's matrix (the BMI160
# below) both +1, with the kernel's identity (the MPU-6050) both -1, the frame motiond reads
# such a chip in ("Axes").
board_turn() { # name address layout y-sign gyro-sign [degrees/s gyro-counts-for-it 1-g-counts]
    # layouts: bmi (LE gyro then accel from 0x0c), mpu (BE accel, temp, gyro from 0x3b), lsm (LE
    # gyro then accel from 0x22). Default 45 °/s, 737 counts (0.001065 rad/s a count), 16384 a g.
    rate=${6:-45}
    motionctl monitor --json --wait 10 --duration $(( 90 / rate + 6 )) --interval 0.02 deviceMotion >/run/turn-$1.log 2>&1 &
    m=$!
    wait_for 10 grep -q deviceMotion /run/turn-$1.log
    python3 - "$stub" /run/turn-$1.writes "$2" "$3" "$4" "$5" "$rate" "${7:-737}" "${8:-16384}" <<'EOP'
import ctypes, fcntl, math, os, struct, sys, time
bus, out, address, layout, ysign, gsign = int(sys.argv[1]), sys.argv[2], int(sys.argv[3], 16), sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
degrees, counts, one_g = float(sys.argv[7]), int(sys.argv[8]), int(sys.argv[9])
fd = os.open(f"/dev/i2c-{bus}", os.O_RDWR)
fcntl.ioctl(fd, 0x0706, address)  # I2C_SLAVE_FORCE: the bound driver holds the address
def write(reg, values):
    block = (ctypes.c_ubyte * 34)(len(values), *values)
    # struct i2c_smbus_ioctl_data: read_write (u8), command (u8), size (u32), data (pointer)
    args = struct.pack("BBxxIP", 0, reg, 8, ctypes.addressof(block))  # I2C_SMBUS_WRITE, I2C_SMBUS_I2C_BLOCK_DATA
    fcntl.ioctl(fd, 0x0720, args)
def le16(v): return [v & 255, (v >> 8) & 255]
def be16(v): return [(v >> 8) & 255, v & 255]
rate, log = math.radians(degrees), []
duration = math.pi / 2 / rate
clock = lambda: time.clock_gettime(time.CLOCK_BOOTTIME)
def pose(theta, gyro):
    a = [0, ysign * round(one_g * math.sin(theta)), round(one_g * math.cos(theta))]
    g = [gsign * gyro, 0, 0]
    if layout == "bmi": write(0x0c, sum((le16(v & 0xffff) for v in g + a), []))
    elif layout == "lsm": write(0x22, sum((le16(v & 0xffff) for v in g + a), []))
    else: write(0x3b, sum((be16(v & 0xffff) for v in a + [-3920] + g), []))
pose(0, 0); time.sleep(1.5)
start = clock()
while True:
    t = clock() - start
    theta = min(rate * t, math.pi / 2)
    pose(theta, counts if t < duration else 0)
    log.append((clock(), math.degrees(theta)))
    if t >= duration: break
    time.sleep(0.02)
time.sleep(1.5)
open(out, "w").write("".join("%.6f %.3f\n" % e for e in log))
EOP
    wait $m
    verdict=$(python3 - /run/turn-$1.log /run/turn-$1.writes "$rate" <<'EOP'
import bisect, json, math, sys
expected = math.radians(float(sys.argv[3]))
samples = [m for m in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")) if m.get("type") == "deviceMotion"]
log = [tuple(map(float, l.split())) for l in open(sys.argv[2])]
times = [t for t, _ in log]
start, end = log[0][0], log[-1][0]
worst, at, rates = 0.0, 0.0, []
for m in samples:
    t = m["timestamp"]
    if not (start + 0.3 <= t <= end + 1.0): continue
    theta = math.radians(log[max(0, bisect.bisect_right(times, t) - 1)][1])
    want = (0, -math.sin(theta), -math.cos(theta))
    g = m["gravity"]; v = (g["x"], g["y"], g["z"])
    cos = sum(a * b for a, b in zip(v, want)) / math.hypot(*v)
    angle = math.degrees(math.acos(max(-1, min(1, cos))))
    if angle > worst: worst, at = angle, t - start
    if start + 0.5 <= t <= end - 0.5: rates.append(m["rotationRate"]["x"])
last = samples[-1]["gravity"] if samples else {}
rate = sorted(rates)[len(rates) // 2] if rates else float("nan")
ok = samples and worst <= 10 and abs(rate - expected) < 0.2 * expected
print(("ok" if ok else "bad") + f" worst {worst:.1f}° (at +{at:.2f} s) between the fused gravity and the written angle's over {len(samples)} values; rotation rate x {rate:.3f} rad/s mid-turn (written {expected:.3f}); at the end ({last.get('x', 0):+.2f} {last.get('y', 0):+.2f} {last.get('z', 0):+.2f})")
EOP
)
    case $verdict in
        ok*) result board-motion-fused-$1 PASS "${verdict#ok }" ;;
        *) result board-motion-fused-$1 FAIL "${verdict#bad }; $(wc -l < /run/turn-$1.writes 2>/dev/null) writes; $(tail -c 300 /run/turn-$1.log | tr '\n' '|')" ;;
    esac
}
seen=$(journalctl -q -o cat -u motiond.service | wc -l)
mpu="2048 -1024 15872 100 -100 50"; field="67 -20 -133"
bind ak8975 0x0c; bind mpu6050 0x68
ak_field $field; mpu_pose $mpu
udevadm settle -t 30
found() { motionctl status 2>&1 | grep -E '^ +(accelerometer|gyroscope|magnetometer) ' | tr -s ' '; }
on() { found | grep -E "^ $1 " | grep -q "($2)"; }
first_board() { on accelerometer mpu6050 && on gyroscope mpu6050 && on magnetometer ak8975; }
imu=$(iio_by_name mpu6050); imu=${imu##*/}; magn=$(iio_by_name ak8975); magn=${magn##*/}
scales() { # device: its scales as the driver reports them
    (cd /sys/bus/iio/devices/$1 && for f in in_*scale; do printf '%s %s ' "$f" "$(cat $f)"; done)
}
# What each driver makes without an interrupt line: a buffer (a software trigger could drive
# it), a trigger of its own.
made() {
    t=$(cat /sys/bus/iio/devices/trigger*/name 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
    printf '%s: buffer %s, triggers %s' "$(cat /sys/bus/iio/devices/$1/name)" "$([ -d /sys/bus/iio/devices/$1/buffer ] && echo yes || echo no)" "${t:-none}"
}
if wait_for 30 first_board; then
    result board-discovery PASS "$(found | tr '\n' '|') $imu: $(scales $imu); $magn: $(scales $magn); $(made $imu); $(made $magn)"
else
    result board-discovery FAIL "devices: $(cat /sys/bus/iio/devices/*/name 2>/dev/null | tr '\n' ' '); motiond: $(found | tr '\n' '|'); $(since | tail -6 | tr '\n' '|'); dmesg: $(dmesg | grep -i -E 'mpu|ak89|i2c' | tail -4 | tr '\n' '|')"
fi
# Polled (no interrupt line, no trigger), read by a client as an application would.
board_read() { # name device "counts" "scales": the client's values checked
    motionctl monitor --json --wait 10 --duration 4 --interval 0.05 accelerometer gyro magnetometer >/run/monitor-$1.log 2>&1 &
    m=$!
    wait_for 10 grep -q '"magnetometer"' /run/monitor-$1.log
    reading=$(found | tr '\n' '|')
    wait $m
    verdict=$(board_values /run/monitor-$1.log $2 $2 $magn "$3" "$4" 2>&1)
    case $verdict in
        ok*) result board-values-$1 PASS "${verdict#ok }; $reading" ;;
        *) result board-values-$1 FAIL "${verdict#bad }; $(found | tr '\n' '|'); $(head -c 300 /run/monitor-$1.log | tr '\n' '|'); $(since | tail -4 | tr '\n' '|')" ;;
    esac
}
# The datasheets' sensitivities at the ranges the drivers set (±2 g, ±2000 °/s) in the ABI's
# units: accelerometers 9.80665 / 16384 m/s² (the drivers round to 0.000598), MPU-6050 gyroscope
# 1 / 16.4 °/s = 0.001064724 rad/s, BMI160's 0.001065 rad/s as its driver rounds it; AK8975 0.3 µT
# = 0.003 G per count at the fuse ROM's 0x80 (ASA 128: (128 − 128) / 256 + 1 = 1).
ak8975_scale=0.003
board_read mpu6050 $imu "$mpu $field" "0.000598 0.001064724 $ak8975_scale"
# Its poses, polled: face up reads face up; upright, without a matrix, upside down (as
# iio-sensor-proxy reads x and y; the BMI160's checks below show the matrix and the motion).
pose_run mpu mpu_pose "upright 2.5 0 16384 0 0 0 0 portraitUpsideDown 0 1 0" "face-up 2.5 0 0 16384 0 0 0 faceUp 0 0 -1"
verdict=$(pose_verdict mpu)
case $verdict in
    ok*) result board-poses-mpu6050 PASS "${verdict#ok }" ;;
    *) result board-poses-mpu6050 FAIL "${verdict#bad }" ;;
esac
# The turn, polled (no buffer without an interrupt), through the kernel's identity, from the
# face-up pose the sequence ended in (a pose written at once is a turn the gyroscope denies: the
# fusion takes seconds to believe it, so the turn starts from where it already is).
board_turn mpu6050 0x68 mpu -1 -1
mpu_pose $mpu
# The IMU unplugged; another chip in its place is found and read the same way.
unbind 0x68
if wait_for 15 unavail; then
    result board-unplug PASS "$(echo $line)"
else
    result board-unplug FAIL "devices: $(cat /sys/bus/iio/devices/*/name 2>/dev/null | tr '\n' ' '); motiond: $(found | tr '\n' '|')"
fi
# Plugged back: found again and read (its registers kept the pose), then unplugged for good.
bind mpu6050 0x68
udevadm settle -t 30
imu=$(iio_by_name mpu6050); imu=${imu##*/}
motionctl monitor --json --wait 10 --duration 3 --interval 0.05 accelerometer >/run/monitor-replug.log 2>&1
back=$(grep -c '"accelerometer"' /run/monitor-replug.log)
if on accelerometer mpu6050 && [ "$back" -gt 0 ]; then
    result board-replug PASS "$(found | grep -E '^ accelerometer' ); $back values; $(tail -1 /run/monitor-replug.log | cut -c1-160)"
else
    result board-replug FAIL "$(found | tr '\n' '|'); $back values; $(since | tail -4 | tr '\n' '|')"
fi
unbind 0x68
wait_for 15 unavail
bmi="-4096 8192 12288 -200 300 -50"
bmi_pose $bmi
bind bmi160 0x69
udevadm settle -t 30
imu=$(iio_by_name bmi160); imu=${imu##*/}
second_board() { on accelerometer bmi160 && on gyroscope bmi160; }
wait_for 30 second_board
diag "$(made $imu)"
# The attributes motiond may change as it reads, as the drivers had them before.
board_attrs() { for d in $imu $magn; do (cd /sys/bus/iio/devices/$d && for f in *sampling_frequency buffer/enable; do [ -e $f ] && printf '%s:%s=%s ' $d $f "$(cat $f 2>&1)"; done); done; }
attrs_before=$(board_attrs)
board_read bmi160 "$imu" "$bmi $field" "0.000598 0.001065 $ak8975_scale"

# (o2) the software trigger. The BMI160 keeps its buffer without an interrupt line but has no
#      trigger of its own: motiond makes an hrtimer trigger for it through configfs (the guest
#      has the modules Debian's amd64 kernel lacks, built from Debian's source of this kernel:
#      scripts/system/build-guest.sh; udev's rule loads them), attaches it, reads every scan
#      with the kernel's boot-clock stamp, and removes the trigger once nobody reads the device.
#      Then the same client with `software-trigger = "off"`: the device polled, side by side.
#      A client at 100 Hz (device motion and the accelerometer, "latency" 0: each value at once,
#      and 0.1 s: batched, as Android's maximum report latency); per path: motiond's wake-ups and
#      CPU, the accelerometer's stamps' spacing, and the scans lost (against the kernel's trace).
hrtimer=/sys/kernel/config/iio/triggers/hrtimer
swtrigger=motiond-$imu
rate_client() { # seconds latency out: the accelerometer's stamps, one a line
    python3 - "$@" <<'EOP'
import json, socket, sys, time
seconds, latency, out = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("/run/motiond/motiond.sock")
for i, stream in enumerate(["deviceMotion", "accelerometer"], 1):
    request = {"op": "subscribe", "id": i, "stream": stream, "interval": 0.01}
    if latency > 0: request["latency"] = latency
    s.sendall((json.dumps(request) + "\n").encode())
end, data, stamps = time.monotonic() + seconds, b"", []
s.settimeout(0.5)
while time.monotonic() < end:
    try: chunk = s.recv(65536)
    except socket.timeout: continue
    if not chunk: break
    data += chunk
    *lines, data = data.split(b"\n")
    for line in lines:
        m = json.loads(line)
        if m.get("type") == "accelerometer": stamps.append(m["timestamp"])
open(out, "w").write("".join("%.6f\n" % t for t in stamps))
EOP
}
# The scans the kernel made, from its own trace: a scan runs the trigger consumer's hard
# handler (the IIO core's pollfunc, which takes the scan's stamp), an interrupt named after the
# device ("bmi160_consumer1"), traced here on the boot clock from its entry to its exit (the
# exit event has no name: it is paired by the interrupt's number, known once the consumer
# exists). The kernel makes no scan while the emulated CPU stalls, nor when the scan before is
# still being read a period after its expiry (iio_trigger_poll skips the expiry); those are not
# motiond's to deliver, and are not traced.
tracing=/sys/kernel/tracing
scans_traced() { # start | stop out: "entry exit" of each scan the kernel made, one a line
    e=$tracing/events/irq/irq_handler_entry; x=$tracing/events/irq/irq_handler_exit
    if [ "$1" = start ]; then
        [ -d $e ] || mount -t tracefs tracefs $tracing
        echo 0 > $tracing/tracing_on; echo boot > $tracing/trace_clock; echo > $tracing/trace
        echo "name ~ \"$(cat /sys/bus/iio/devices/$imu/name)_consumer*\"" > $e/filter
        echo 1 > $e/enable; echo 1 > $x/enable; echo 1 > $tracing/tracing_on
    else
        echo 0 > $tracing/tracing_on; echo 0 > $e/enable; echo 0 > $x/enable
        awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "irq_handler_entry:" || $(i + 1) == "irq_handler_exit:") {
                   t = $i; sub(/:$/, "", t); q = $(i + 2)
                   if ($(i + 1) == "irq_handler_entry:") at[q] = t; else if (q in at) {print at[q], t; delete at[q]}
                   break } }
             END { for (q in at) print at[q], at[q] }' $tracing/trace > "$2"
    fi
}
# The client's stamps matched to the scans the kernel made from the first stamp to the last: a
# scan's stamp is taken in the traced handler, so each scan has its stamp between the handler's
# entry and exit (microseconds apart, unless the emulated CPU stalled in the handler: a CI run
# saw a stamp 1.11 ms after its entry), with 1 ms of slack, or was lost. "made delivered lost
# foreign": foreign, stamps that no traced scan explains (not the kernel's stamp). The first
# lost scans' and foreign stamps' times go to the file `why`.
delivered() { # stamps scans why
    awk -v why="$3" 'FILENAME == ARGV[1] {s[++n] = $1; next} {k[++m] = $1; x[m] = ($2 > $1 + 0.001) ? $2 : $1 + 0.001}
        END { j = 1
              for (i = 1; i <= m; i++) { if (n == 0 || k[i] < s[1] - 0.001 || k[i] > s[n] + 0.001) continue; made++
                  while (j <= n && s[j] < k[i] - 0.001) j++
                  if (j <= n && s[j] <= x[i]) {got++; used[j] = 1; j++} else if (++lost <= 5) printf "lost the scan of %s; ", k[i] > why }
              for (j = 1; j <= n; j++) if (!used[j] && ++foreign <= 5) printf "stamp %s is no scan of the kernel; ", s[j] > why
              printf "%d %d %d %d", made, got, lost, foreign }' "$1" "$2"
}
swt_state() {
    t=""; for d in /sys/bus/iio/devices/trigger*; do [ "$(cat $d/name 2>/dev/null)" = "$swtrigger" ] && t=$d; done
    printf 'trigger %s (%s, %s Hz), current_trigger "%s", configfs %s' "$swtrigger" "${t:-none}" "$([ -n "$t" ] && cat $t/sampling_frequency)" \
        "$(cat /sys/bus/iio/devices/$imu/trigger/current_trigger 2>&1)" "$(ls $hrtimer 2>&1 | tr '\n' ' ')"
}
swt_made() { [ -d $hrtimer/$swtrigger ] && [ "$(cat /sys/bus/iio/devices/$imu/trigger/current_trigger)" = "$swtrigger" ]; }
swt_gone() { [ ! -e $hrtimer/$swtrigger ] && ! grep -qx "$swtrigger" /sys/bus/iio/devices/trigger*/name 2>/dev/null; }
# One path measured: "wake-ups CPU preemptions spacing" and, through the trigger, "made
# delivered lost foreign" (delivered), the journal of its window aside, and a SYSTEM-POWER line.
measure_path() { # label latency
    case $1 in trigger*) scans_traced start;; esac
    from=$(date +%s)
    rate_client 14 $2 /run/stamps-$1.log &
    c=$!
    sleep 3
    pw=$(power board-$1 $(systemctl show -p MainPID --value motiond.service) 5)
    echo "$pw"
    read -r windowed _ < /proc/uptime
    wait $c
    # The window must lie within the client's stream, or the figures are not the path's.
    [ "$(awk -v w=$windowed 'END {print ($1 > w) ? "in" : "out"}' /run/stamps-$1.log)" = in ] ||
        printf 'the %s window ended at %s s, after the last stamp; ' $1 $windowed >> /run/late
    case $1 in trigger*) scans_traced stop /run/scans-$1.log;; esac
    journalctl -q -o cat -u motiond.service --since "@$from" > /run/journal-$1.log
    tail -n +100 /run/stamps-$1.log > /run/stamps-$1.steady
    echo "$pw" | sed 's/.*wakeups\/s=\([^ ]*\) cpu=\([^ ]*\) .*preempted\/s=\([^ ]*\) .*/\1 \2 \3/' | tr '\n' ' ' > /run/path-$1
    spacing < /run/stamps-$1.steady | tr ' ' '_' >> /run/path-$1
    case $1 in trigger*) printf ' %s' "$(delivered /run/stamps-$1.steady /run/scans-$1.log /run/why-$1)" >> /run/path-$1;; esac
}
if [ -d $hrtimer ]; then
    modules="$(lsmod | awk '$1 ~ /^(iio_trig_hrtimer|industrialio_sw_trigger|industrialio_configfs)$/ {print $1}' | tr '\n' ' ')"
    access="$(stat -c '%G %a' $hrtimer)"
    rate_client 6 0 /run/stamps-check.log &
    c=$!
    if wait_for 5 swt_made; then state="$(swt_state)"; status="$(found | grep -E '^ accelerometer' )"; else state="$(swt_state)"; status="$(found | tr '\n' '|')"; fi
    wait $c
    if echo "$state" | grep -q "triggers*[0-9]*, 100.000000 Hz), current_trigger \"$swtrigger\"" && echo "$status" | grep -q buffered &&
       wait_for 10 swt_gone; then
        result board-software-trigger PASS "while read: $state; $status; modules: $modules; $hrtimer $access; nobody reading: removed ($(swt_state)); $(since | grep -E 'software trigger' | head -2 | tr '\n' '|')"
    else
        result board-software-trigger FAIL "while read: $state; status: $status; modules: $modules; $hrtimer $access; after: $(swt_state); $(since | tail -6 | tr '\n' '|')"
    fi
    # Side by side: buffered through the trigger, then polled (the configuration's "off").
    measure_path trigger-l0 0 >/dev/null; measure_path trigger-l100 0.1 >/dev/null
    cp /etc/motiond/motiond.toml /run/motiond.toml.saved
    printf '\n[iio]\nsoftware-trigger = "off"\n' >> /etc/motiond/motiond.toml
    systemctl restart motiond.service; wait_for 20 systemctl -q is-active motiond.service; sleep 1
    measure_path polled-l0 0 >/dev/null; measure_path polled-l100 0.1 >/dev/null
    polled_said=$(journalctl -q -o cat -u motiond.service | grep -c 'get no software trigger: software-trigger = off')
    cp /run/motiond.toml.saved /etc/motiond/motiond.toml
    systemctl restart motiond.service; wait_for 20 systemctl -q is-active motiond.service
    for p in trigger-l0 polled-l0 trigger-l100 polled-l100; do echo "SYSTEM-POWER board-$p $(cat /run/path-$p) (wake-ups/s, CPU %, preemptions/s, accelerometer spacing; through the trigger: scans the kernel made, delivered, lost, stamps not the kernel's)"; done
    # Targets: every scan the kernel made delivered with the kernel's stamp (none lost, none
    # foreign, over at least 3 s of scans), the spacing's median within 10 % of the period, and,
    # batched, at most a third of the polled wake-ups.
    verdict=$(awk -v t0="$(cat /run/path-trigger-l0)" -v t1="$(cat /run/path-trigger-l100)" -v p1="$(cat /run/path-polled-l100)" 'BEGIN {
        split(t1, b, " "); split(p1, c, " "); bad = ""
        for (k = 0; k < 2; k++) { x = k ? t1 : t0; split(x, f, " "); match(f[4], /median=[0-9.]+/); m = substr(f[4], RSTART + 7, RLENGTH - 7) + 0
            if (m < 9 || m > 11) bad = bad " median " m " ms"; if (f[5] < 300) bad = bad " " f[5] + 0 " scans traced"
            if (f[7] > 0) bad = bad " " f[7] " scans lost"; if (f[8] > 0) bad = bad " " f[8] " stamps not the kernel'"'"'s" }
        w = b[1]; sub(/>=/, "", w); w += 0; pw = c[1]; sub(/>=/, "", pw); pw += 0
        if (w * 3 > pw) bad = bad " batched wake-ups " w "/s, polled " pw "/s"
        print bad == "" ? "ok" : "bad" bad }')
    if [ "$verdict" = ok ] && [ ! -e /run/late ] && [ "$polled_said" -ge 1 ]; then
        result board-trigger-vs-polled PASS "trigger (latency 0 / 0.1 s): $(cat /run/path-trigger-l0) / $(cat /run/path-trigger-l100); polled: $(cat /run/path-polled-l0) / $(cat /run/path-polled-l100)"
    else
        result board-trigger-vs-polled FAIL "${verdict#bad}; $(cat /run/late /run/why-trigger-l0 /run/why-trigger-l100 2>/dev/null); off said $polled_said times; trigger: $(cat /run/path-trigger-l0) / $(cat /run/path-trigger-l100); polled: $(cat /run/path-polled-l0) / $(cat /run/path-polled-l100); journal: $(tail -q -n 3 /run/journal-trigger-l0.log /run/journal-trigger-l100.log | tr '\n' '|')"
    fi
else
    # No configfs trigger here: the device is polled, and the log said why, once.
    rate_client 4 0 /run/stamps-check.log
    said=$(journalctl -q -o cat -u motiond.service | grep -c 'get no software trigger')
    if [ "$said" = 1 ] && found | grep -E '^ accelerometer' | grep -q polling; then
        result board-software-trigger PASS "no $hrtimer ($(ls /sys/kernel/config 2>&1 | tr '\n' ' ')): polled, said once: $(journalctl -q -o cat -u motiond.service | grep 'get no software trigger')"
    else
        result board-software-trigger FAIL "no $hrtimer; said $said times; $(found | tr '\n' '|')"
    fi
fi
# (o3) poses and motion. The chip reports the specific force (+1 g on the up axis, as MEMS parts
#      and Android do) where a HID hub reports the gravity vector: motiond reads x and y as
#      iio-sensor-proxy does (after the matrix, the gravity vector's sign) and turns z and the
#      gyroscope to match (MountMatrix.applied(for:specificForce:)). A client's accelerometer
#      and orientation through a pose sequence: unconfigured (the kernel's identity, as a
#      board's overlay without a mount-matrix gives), then with the board's mount matrix in motiond.toml
#      (the route on a board: no hwdb entry), then a quarter turn about x from face up to
#      upright at 45 °/s, written every 20 ms into the registers, the gyroscope's rate with the
#      accelerometer's turning: the fused gravity must follow within 10° all along.
pose_run plain bmi_pose "face-up 2.5 0 0 16384 0 0 0 faceUp 0 0 -1" "upright 2.5 0 16384 0 0 0 0 portraitUpsideDown 0 1 0"
verdict=$(pose_verdict plain)
case $verdict in
    ok*) result board-poses-unconfigured PASS "as iio-sensor-proxy reads x and y (upright reads as upside down without a matrix), face up as face up: ${verdict#ok }" ;;
    *) result board-poses-unconfigured FAIL "${verdict#bad }; $(motiond --list-sensors 2>&1 | grep -A1 -E '^ *mount matrix' | head -4 | tr '\n' '|')" ;;
esac
# The board's route to its own frame: a mount matrix in the configuration for the chip (what a
# device-tree overlay's mount-matrix property would give the driver's sysfs attribute), written
# as iio-sensor-proxy reads matrices: upright reads y = -1 g after it.
cp /etc/motiond/motiond.toml /run/motiond.toml.saved
printf '\n[[mount-matrix]]\ndevice = "bmi160"\nkind = "accelerometer"\nmatrix = "-1, 0, 0; 0, -1, 0; 0, 0, 1"\n\n[[mount-matrix]]\ndevice = "bmi160"\nkind = "gyroscope"\nmatrix = "-1, 0, 0; 0, -1, 0; 0, 0, 1"\n' >> /etc/motiond/motiond.toml
systemctl restart motiond.service; wait_for 20 systemctl -q is-active motiond.service
listed=$(motiond --list-sensors 2>&1 | grep -E '^ *mount matrix' | head -2 | tr -s ' ' | tr '\n' '|')
pose_run matrix bmi_pose "upright 2.5 0 16384 0 0 0 0 portrait 0 -1 0" "left-up 2.5 -16384 0 0 0 0 0 landscapeRight 1 0 0" "face-up 2.5 0 0 16384 0 0 0 faceUp 0 0 -1"
verdict=$(pose_verdict matrix)
case $verdict in
    ok*) result board-mount-matrix-config PASS "${verdict#ok }; $listed" ;;
    *) result board-mount-matrix-config FAIL "${verdict#bad }; $listed" ;;
esac
board_turn bmi160 0x69 bmi 1 1
cp /run/motiond.toml.saved /etc/motiond/motiond.toml
systemctl restart motiond.service; wait_for 20 systemctl -q is-active motiond.service
# Stopped while a client reads, motiond leaves the board's chips as it found them, with no
# software trigger behind.
rate_client 8 0 /run/stamps-stop.log &
c=$!
[ -d $hrtimer ] && wait_for 5 swt_made
systemctl stop motiond.service
wait $c
attrs_after=$(board_attrs)
if [ "$attrs_after" = "$attrs_before" ] && [ "$(systemctl show -p Result --value motiond.service)" = success ] && swt_gone; then
    result board-stop-restores PASS "stopped; as before: $attrs_after; $(swt_state)"
else
    result board-stop-restores FAIL "stop: $(systemctl show -p Result --value motiond.service); before: $attrs_before; after: $attrs_after; $(swt_state)"
fi
# Unplugged while read through its software trigger: the trigger goes with it.
if [ -d $hrtimer ]; then
    systemctl start motiond.service
    rate_client 10 0 /run/stamps-unplug.log &
    c=$!
    wait_for 15 swt_made; before="$(swt_state)"
    unbind 0x69
    if wait_for 10 swt_gone; then
        result board-trigger-unplug PASS "read: $before; unplugged: $(swt_state); $(since | grep -E 'lost|software trigger' | tail -2 | tr '\n' '|')"
    else
        result board-trigger-unplug FAIL "read: $before; unplugged: $(swt_state); $(since | tail -4 | tr '\n' '|')"
    fi
    wait $c
else
    unbind 0x69
fi

# (o4) a third IMU driver: an LSM6DS3 (st_lsm6dsx), which makes two devices, lsm6ds3_accel and
#      lsm6ds3_gyro, and without an interrupt neither buffer nor trigger: polled, each raw read
#      a one-shot measurement (the driver powers the sensor up, sleeps three or four periods,
#      reads, powers it down). Its identity (WHO_AM_I 0x69) and an empty FIFO (FIFO_STATUS2
#      0x10) for the probe; ±2 g and 245 °/s, the driver's defaults.
systemctl start motiond.service
regs 0x6a 0x0f 0x69; regs 0x6a 0x3a 0x00 0x10
lsm="1024 -2048 16393 300 -600 900"
# Gyroscope x y z, then accelerometer x y z, from 0x22, least significant byte first.
regs 0x6a 0x22 $(le16 300) $(le16 -600) $(le16 900) $(le16 1024) $(le16 -2048) $(le16 16393)
bind lsm6ds3 0x6a
udevadm settle -t 30
imu=$(iio_by_name lsm6ds3_accel); imu=${imu##*/}
gyro_dev=$(iio_by_name lsm6ds3_gyro); gyro_dev=${gyro_dev##*/}
third_board() { on accelerometer lsm6ds3_accel && on gyroscope lsm6ds3_gyro; }
wait_for 30 third_board
# The sampling frequencies of devices as found (what stop must put back).
freq_attrs() { for d in "$@"; do (cd /sys/bus/iio/devices/$d && for f in *sampling_frequency; do [ -e $f ] && printf '%s:%s=%s ' $d $f "$(cat $f 2>&1)"; done); done; }
lsm_hmc_before=$(freq_attrs $imu $gyro_dev)
diag "$(made $imu); $(made $gyro_dev); $imu: $(scales $imu); $gyro_dev: $(scales $gyro_dev)"
# The datasheet's ±2 g sensitivity, 0.061 mg per count, and 245 °/s, 8.75 mdps, as the driver
# rounds them: 0.000598205 and 0.000152716; each sensor from its own device.
motionctl monitor --json --wait 10 --duration 6 --interval 0.05 accelerometer gyro magnetometer >/run/monitor-lsm.log 2>&1
verdict=$(board_values /run/monitor-lsm.log $imu $gyro_dev $magn "$lsm $field" "0.000598205 0.000152716 $ak8975_scale" 2>&1)
case $verdict in
    ok*) result board-values-lsm6ds3 PASS "${verdict#ok }; $(found | grep -E 'accelerometer|gyroscope' | tr '\n' '|')" ;;
    *) result board-values-lsm6ds3 FAIL "${verdict#bad }; $(found | tr '\n' '|'); $(head -c 300 /run/monitor-lsm.log | tr '\n' '|'); $(since | tail -4 | tr '\n' '|')" ;;
esac
# Its poses, each raw read a one-shot measurement (held 4 s: a reading takes a few hundred ms).
lsm_pose() { regs 0x6a 0x22 $(le16 $4) $(le16 $5) $(le16 $6) $(le16 $1) $(le16 $2) $(le16 $3); }
pose_run lsm lsm_pose "upright 4 0 16393 0 0 0 0 portraitUpsideDown 0 1 0" "face-up 4 0 0 16393 0 0 0 faceUp 0 0 -1"
verdict=$(pose_verdict lsm)
case $verdict in
    ok*) result board-poses-lsm6ds3 PASS "${verdict#ok }" ;;
    *) result board-poses-lsm6ds3 FAIL "${verdict#bad }" ;;
esac
# A quarter turn as on the others, from the face-up pose the sequence ended in, slower (15 °/s:
# a reading takes a few hundred ms here; 1714 counts at 0.000152716 rad/s; 16393 counts a g),
# through the kernel's identity.
board_turn lsm6ds3 0x6a lsm -1 -1 15 1714 16393
lsm_attrs=$imu; lsm_attrs_gyro=$gyro_dev
unbind 0x0c

# (o5) a second magnetometer driver: an HMC5883L (hmc5843), its identity "H43" and its status
#      register's ready bit (its driver waits for it before each read), a field of (0.2, 0, -0.4)
#      G at the chip's 1090 counts a Gauss: x 218, z -436 (big-endian, in the chip's order X, Z,
#      Y from 0x03). The driver reports in_magn_scale 0.000009174, a hundredth of Gauss per count
#      (its table is 10^7/gain nano); motiond puts that right (DriverScaleCorrection): the client
#      reads (-20, 0, -40) µT (x and y negated: a specific-force family's chip, "Axes"), a
#      field the Earth's size.
regs 0x1e 0x0a 0x48 0x34 0x33; regs 0x1e 0x09 0x01
regs 0x1e 0x03 $(be16 218) $(be16 -436) $(be16 0)
bind hmc5883l 0x1e
udevadm settle -t 30
magn=$(iio_by_name hmc5883l); magn=${magn##*/}
wait_for 30 on magnetometer hmc5883l
lsm_hmc_before="$lsm_hmc_before$(freq_attrs $magn)"
motionctl monitor --json --wait 10 --duration 4 --interval 0.1 magnetometer >/run/monitor-hmc.log 2>&1
verdict=$(python3 - /run/monitor-hmc.log "$magn" <<'EOP'
import json, sys
last = None
for line in open(sys.argv[1]):
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("type") == "magnetometer": last = m["magneticField"]
dev = sys.argv[2]
def attr(name): return open(f"/sys/bus/iio/devices/{dev}/{name}").read().strip()
scale, raw = float(attr("in_magn_scale")), [int(attr(f"in_magn_{a}_raw")) for a in "xyz"]
bad = []
if scale != 0.000009174: bad.append(f"in_magn_scale {scale:g}, the driver's table says 0.000009174")
if raw != [218, 0, -436]: bad.append(f"raw {raw}, registers [218, 0, -436]")
want = [-218 * scale * 1e4, 0.0, -436 * scale * 1e4]
if last is None: bad.append("no magnetometer value")
else:
    got = [last[a] for a in "xyz"]
    if any(abs(g - w) > scale * 1e4 for g, w in zip(got, want)): bad.append(f"magnetometer {got}, expected {[round(w, 3) for w in want]} µT")
print(("ok " if not bad else "bad ") + "; ".join(bad) + f" sysfs scale {scale:g}, raw {raw}; motiond {last} µT")
EOP
)
case $verdict in
    ok*) result board-values-hmc5883l PASS "${verdict#ok }; $(motiond --list-sensors 2>&1 | grep -A3 'magnetometer —' | grep scale | tr -s ' ')" ;;
    *) result board-values-hmc5883l FAIL "${verdict#bad }; $(found | tr '\n' '|'); $(since | tail -4 | tr '\n' '|')" ;;
esac
# Stopped, motiond leaves these chips' attributes as it found them too (it set the LSM6DS3's
# and the HMC5883L's sampling frequencies while reading; their values at bind were kept).
systemctl stop motiond.service
after=$(freq_attrs $lsm_attrs $lsm_attrs_gyro $magn)
if [ "$after" = "$lsm_hmc_before" ] && [ "$(systemctl show -p Result --value motiond.service)" = success ]; then
    result board-stop-restores-lsm6ds3-hmc5883l PASS "as at bind: $after"
else
    result board-stop-restores-lsm6ds3-hmc5883l FAIL "at bind: $lsm_hmc_before; after stop: $after"
fi
# Unplugged, plugged back, unplugged again: the LSM6DS3's two devices and the HMC5883L go
# unavailable, come back under their drivers' names, and go again.
systemctl start motiond.service
wait_for 15 on magnetometer hmc5883l
gone_both() { found | grep -E '^ accelerometer' | grep -q unavailable && found | grep -E '^ magnetometer' | grep -q unavailable; }
unbind 0x6a; unbind 0x1e
wait_for 15 gone_both; first=$(found | grep -E '^ (accelerometer|magnetometer)' | tr '\n' '|')
bind lsm6ds3 0x6a; bind hmc5883l 0x1e
udevadm settle -t 30
back_both() { on accelerometer lsm6ds3_accel && on gyroscope lsm6ds3_gyro && on magnetometer hmc5883l; }
wait_for 30 back_both; back=$(found | grep -E '^ (accelerometer|gyroscope|magnetometer)' | tr '\n' '|')
unbind 0x6a; unbind 0x1e
if echo "$first" | grep -q unavailable && echo "$back" | grep -q lsm6ds3_gyro && echo "$back" | grep -q hmc5883l && wait_for 15 gone_both; then
    result board-replug-lsm6ds3-hmc5883l PASS "unplugged: $first plugged back: $back unplugged again"
else
    result board-replug-lsm6ds3-hmc5883l FAIL "unplugged: $first plugged back: $back now: $(found | tr '\n' '|')"
fi
[ "$part" = boards ] && buffer_reads
fi

if [ "$part" = system ]; then

# (n) removal and purge: remove takes the programs and stops the service, keeps the
#     configuration (edited here, as an administrator would) and what motiond learned; purge
#     takes those too; a file of the administrator's own (a drop-in) stays either way.
mkdir -p /etc/systemd/system/motiond.service.d
echo '# an administrator'"'"'s own drop-in' > /etc/systemd/system/motiond.service.d/local.conf
echo '# edited by the administrator' >> /etc/motiond/motiond.toml
learned=$(ls /var/lib/motiond 2>&1 | tr '\n' ' ')
DEBIAN_FRONTEND=noninteractive apt-get remove -y motiond >/run/apt-remove.log 2>&1; removed=$?
after_remove="bin:$(ls /usr/bin/motiond /usr/bin/motionctl 2>/dev/null | wc -l) service:$(systemctl is-active motiond.service 2>&1) conf:$(grep -c 'edited by the administrator' /etc/motiond/motiond.toml 2>&1) state:$(ls /var/lib/motiond 2>/dev/null | wc -l)"
DEBIAN_FRONTEND=noninteractive apt-get purge -y motiond >/run/apt-purge.log 2>&1; purged=$?
after_purge="conf:$(ls -d /etc/motiond 2>/dev/null | wc -l) state:$(ls -d /var/lib/motiond 2>/dev/null | wc -l) rule:$(ls /lib/udev/rules.d/70-motiond.rules 2>/dev/null | wc -l) dropin:$(ls /etc/systemd/system/motiond.service.d/local.conf 2>/dev/null | wc -l) dpkg:$(dpkg-query -W -f '${Status}' motiond 2>&1 | tr ' ' _)"
if [ $removed = 0 ] && [ $purged = 0 ] && [ -n "$learned" ] && [ "$after_remove" = "bin:0 service:inactive conf:1 state:1" ] &&
   [ "${after_purge% dpkg:*}" = "conf:0 state:0 rule:0 dropin:1" ]; then
    result package-remove-purge PASS "learned before: $learned; after remove: $after_remove; after purge: $after_purge"
else
    result package-remove-purge FAIL "learned before: '$learned'; remove ($removed): $after_remove; purge ($purged): $after_purge; $(tail -3 /run/apt-purge.log | tr '\n' '|')"
fi

fi

# Every part: motiond never died of a fatal signal of its own (the tests' deliberate ends, the
# watchdog's SIGABRT and SIGKILL, are not among them). A crash writes the crashing thread's
# backtrace to the journal (CrashTrace, binary(+offset): addr2line on the unstripped build of
# the same commit names the functions); its first lines go with the verdict.
died='Main process exited, code=(killed|dumped), status=(4/ILL|5/TRAP|7/BUS|8/FPE|11/SEGV)'
crashes=$(journalctl -q -o cat -u motiond.service | grep -E "$died")
if [ -z "$crashes" ]; then
    result no-crash PASS "motiond died of no fatal signal in the $part part"
else
    trace=$(journalctl -q -o cat -u motiond.service | awk '/fatal signal/ {n++} n == 1' | grep -o -E 'fatal signal .*|motiond\([^)]*\)' | sed 's/; backtrace.*//' | tr '\n' ' ')
    result no-crash FAIL "$(echo "$crashes" | wc -l) crash(es); the first trace: ${trace:-none written}; the journal before it: $(journalctl -q -o cat -u motiond.service | grep -B4 -m1 -E "fatal signal|$died" | grep -v -E 'client [0-9]+ (connected|disconnected)' | head -4 | tr '\n' '|')"
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
