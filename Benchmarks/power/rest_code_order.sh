#!/bin/sh
# Writes scripts/rest-path.order, the functions motiond runs at rest, which the release build
# (Makefile RELEASEFLAGS) links next to one another: a still device's readings then fault a
# few 64-KiB windows of code back in after a code-page release, not forty scattered over 12 MB.
# Runs bench_power.py's rest scenarios (desktop-rest: a socket client; desktop-dbus: the D-Bus
# face with monitor-sensor; convertible-rest: two accelerometers and the posture) with motiond
# under callgrind, instrumented only once the device rests (30 s after the daemon started),
# and lists every function of the executable that ran, in the order of its address.
#
#   Benchmarks/power/rest_code_order.sh [MOTIOND]   (default .build/release/motiond)
#
# Rerun it when the rest path's code changes (scripts/check-code-order.sh, which make build
# runs, fails when a tenth of the listed functions are gone).
set -eu
export LC_ALL=C
motiond=$(realpath "${1:-.build/release/motiond}")
out=$(dirname "$0")/../../scripts/rest-path.order
command -v valgrind >/dev/null || { echo "rest_code_order: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d /tmp/rest-code-order-XXXXXX)
trap 'rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the DWARF 5 that Swift writes: a copy without debug information.
cp "$motiond" "$work/motiond" && strip --strip-debug "$work/motiond"
# bench_power.py finds the daemon by its process name; under valgrind that is the tool's.
cat > "$work/callgrind-amd64" <<WRAP
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file=$work/callgrind.%p.out --instr-atstart=no $work/motiond "\$@"
WRAP
chmod +x "$work/callgrind-amd64"
profile() {
    python3 "$(dirname "$0")/bench_power.py" --motiond "$work/callgrind-amd64" --scenario "$1" --runs 1 \
        --window 30 --settle 30 --steps 0 --no-proxy --timeout 120 >"$work/bench.log" 2>&1 &
    bench=$!
    pid=
    while [ -z "$pid" ] && kill -0 "$bench" 2>/dev/null; do
        sleep 1
        pid=$(pgrep -f "callgrind-out-file=$work/" | head -n 1 || true)
    done
    [ -n "$pid" ] && sleep 30 && callgrind_control -i on "$pid" >/dev/null
    wait "$bench"
}
# Under valgrind, monitor-sensor once waited 120 s for its first orientation in desktop-dbus
# (in two of four runs): a scenario that fails is run once more.
for scenario in desktop-rest desktop-dbus convertible-rest; do
    profile "$scenario" || profile "$scenario" || { cat "$work/bench.log" >&2; exit 1; }
done
# Every function named in the profiles (callgrind names each once, as fn= or cfn=), kept if the
# executable defines it, by address.
sed -n 's/^c\{0,1\}fn=([0-9]*) //p' "$work"/callgrind.*.out | sort -u > "$work/names"
# A local name may be defined in several objects: one line for each name.
nm --defined-only "$work/motiond" | awk '$2 ~ /^[tTwW]$/ {print $1, $3}' | sort -k2,2 -u > "$work/symbols"
{
    echo "# The functions motiond runs at rest, linked together (Makefile RELEASEFLAGS; gold's"
    echo "# --section-ordering-file). Written by Benchmarks/power/rest_code_order.sh; do not edit."
    join -1 2 -2 1 "$work/symbols" "$work/names" | sort -k2 | awk '{print ".text." $1}'
} > "$out"
echo "rest_code_order: $(grep -c '^\.text\.' "$out") functions in $out"
