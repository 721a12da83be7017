#!/bin/bash
# Resident memory, threads and wake-ups of motiond-rotate at rest (docs/PERFORMANCE.md,
# "Installed footprint"): a release motiond replays a device standing still in portrait for
# 60 s; each helper given follows it with `--command true`, settles 25 s (the first rotation,
# idle worker threads retiring), then is measured for 30 s.
# Usage: Benchmarks/rotate-memory.sh [MOTIOND [MOTIONCTL...]]   (default: .build/release's)
set -eu
motiond=${1:-.build/release/motiond}
shift || true
[ $# -gt 0 ] || set -- .build/release/motionctl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -c "
print('t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z')
for i in range(6000): print(f'{i/100},0,0,0,0,9.80665,0')" >"$work/still.csv"
switches() { awk '/^voluntary_ctxt_switches/ {s += $2} END {print s}' /proc/"$1"/task/*/status; } # wake-ups (preemptions are none)
for client in "$@"; do
    rm -f "$work/motiond.sock"
    "$motiond" --no-config --source "replay:$work/still.csv" --socket "$work/motiond.sock" --log-level warning &
    daemon=$!
    sleep 1
    # The binary is motiond-rotate when started through a link of that name.
    ln -sf "$(realpath "$client")" "$work/motiond-rotate"
    "$work/motiond-rotate" --socket "$work/motiond.sock" --command true 2>"$work/rotate.log" &
    helper=$!
    sleep 25
    before=$(switches $helper)
    sleep 30
    after=$(switches $helper)
    echo "$client: VmRSS $(awk '/VmRSS/ {print $2, $3}' /proc/$helper/status), $(ls /proc/$helper/task | wc -l) threads," \
         "$(echo "scale=2; ($after - $before) / 30" | bc) wake-ups/s; $(grep -c 'rotating to' "$work/rotate.log") rotation(s)"
    kill $helper $daemon
    wait $helper $daemon 2>/dev/null || true
done
