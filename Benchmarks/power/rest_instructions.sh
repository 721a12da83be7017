#!/bin/sh
# Instructions a rest reading costs: runs bench_power.py's desktop-rest scenario (one emulated
# polled accelerometer, one orientation client, device still) with motiond under callgrind,
# collecting only inside PollingReader's tick (a reading, and the pipeline's handling of it), and
# prints the instructions per tick. Repeatable where timings are not: a reading at rest costs
# ~0.1 ms, most of it the wake-up itself, on a shared machine.
#
#   Benchmarks/power/rest_instructions.sh [MOTIOND]   (default .build/release/motiond)
set -eu
motiond=$(realpath "${1:-.build/release/motiond}")
command -v valgrind >/dev/null || { echo "rest_instructions: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d /tmp/rest-instructions-XXXXXX)
trap 'rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the DWARF 5 that Swift writes: a copy without debug information.
cp "$motiond" "$work/motiond" && strip --strip-debug "$work/motiond"
# bench_power.py finds the daemon by its process name; under valgrind that is the tool's.
cat > "$work/callgrind-amd64" <<WRAP
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file=$work/callgrind.out --collect-atstart=no \
  '--toggle-collect=*PollingReaderC4tick*' $work/motiond "\$@"
WRAP
chmod +x "$work/callgrind-amd64"
python3 "$(dirname "$0")/bench_power.py" --motiond "$work/callgrind-amd64" --scenario desktop-rest --runs 1 \
    --window 30 --settle 10 --steps 0 --no-proxy --timeout 60 >"$work/bench.log" 2>&1 || { cat "$work/bench.log" >&2; exit 1; }
total=$(awk '/^summary:|^totals:/ {print $2; exit}' "$work/callgrind.out")
ticks=$(awk '/^cfn=.*PollingReaderC4tick/ {getline; sub("calls=", ""); print $1; exit}' "$work/callgrind.out")
echo "rest readings: $ticks, instructions: $total, per reading: $((total / ticks))"
